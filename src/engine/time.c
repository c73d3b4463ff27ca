#include "engine/time.h"

#include <math.h>

ts_time ts_time_from_ms(double ms)
{
  return (ts_time)llround(ms * (double)TS_NS_PER_MS);
}
