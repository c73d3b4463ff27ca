/* Simulated time: signed 64-bit nanoseconds. Doubles never hold a simulated instant. */
#ifndef TS_TIME_H
#define TS_TIME_H
#include <stdint.h>

typedef int64_t ts_time;

#define TS_NS_PER_US INT64_C(1000)
#define TS_NS_PER_MS INT64_C(1000000)
#define TS_TIME_MAX INT64_MAX

/* Milliseconds (as read from a model file) to nanoseconds, rounded to nearest. */
ts_time ts_time_from_ms(double ms);
/* Nanoseconds to milliseconds, for reports only (inline: the run layer
 * converts several values per actor). */
static inline double ts_time_to_ms(ts_time t)
{
  return (double)t / (double)TS_NS_PER_MS;
}

#endif
