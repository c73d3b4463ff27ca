/* Actor states: one table (name, glyph, whether the actor is on a CPU), so
 * traces, Gantt charts, explanations and statistics all read the same list.
 * A new state is one enum entry plus one table row in state.c. */
#ifndef TS_STATE_H
#define TS_STATE_H

typedef enum {
  TS_ACTOR_NEW,        /* not yet arrived */
  TS_ACTOR_READY,      /* ready to run: the worker's I/O-callback queue (event loop) or run queue (thread) */
  TS_ACTOR_RUNNING,    /* on the CPU, running its steps */
  TS_ACTOR_QUEUED,     /* in the time-slice queue, yielded */
  TS_ACTOR_IO,         /* waiting off-CPU (io) */
  TS_ACTOR_LOCK_WAIT,  /* waiting for an async lock */
  TS_ACTOR_SLEEP,      /* waiting for a timer */
  TS_ACTOR_CHAN_WAIT,  /* parked on a channel until notified */
  TS_ACTOR_SPIN,       /* on the CPU, spinning for a held mutex (user) */
  TS_ACTOR_FUTEX,      /* on the CPU, in a futex syscall (kernel) */
  TS_ACTOR_MUTEX_PARK, /* parked on a mutex: its whole thread sleeps */
  TS_ACTOR_HOP,        /* in transit to another worker */
  TS_ACTOR_CALL_WAIT,  /* a call: on its way to a server, queued there, or its reply on the way back */
  TS_ACTOR_DONE,
  TS_NSTATES
} ts_actor_state;

typedef struct ts_state_info {
  const char *name;    /* "callback wait", "parked on a mutex", ... */
  const char *key;     /* short identifier: "ready", "mutex_park", ... */
  const char *glyph;   /* one column of a Gantt chart (UTF-8) */
  const char *ascii;   /* the same, in ASCII */
  int on_cpu;          /* the actor holds a CPU in this state */
  int waiting;         /* the actor waits for something it cannot do itself */
  const char *thread_name; /* the name on a thread worker, when it differs ("runnable"); NULL: name */
} ts_state_info;

/* The row of state s (0 <= s < TS_NSTATES); out of range gives a "?" row. */
const ts_state_info *ts_state_get(int s);

#endif
