#include "model/state.h"

#include <stddef.h>

static const ts_state_info table[TS_NSTATES] = {
  [TS_ACTOR_NEW] = {"not arrived", "new", " ", " ", 0, 0, NULL},
  [TS_ACTOR_READY] = {"callback wait", "ready", "\u2592", ":", 0, 1, "runnable"},
  [TS_ACTOR_RUNNING] = {"running", "running", "\u2588", "#", 1, 0, NULL},
  [TS_ACTOR_QUEUED] = {"queued", "queued", "\u2591", ".", 0, 1, NULL},
  [TS_ACTOR_IO] = {"I/O", "io", "\u2581", "_", 0, 0, NULL},
  [TS_ACTOR_LOCK_WAIT] = {"lock wait", "lock_wait", "\u2573", "x", 0, 1, NULL},
  [TS_ACTOR_SLEEP] = {"sleeping", "sleep", "\u00b7", "'", 0, 0, NULL},
  [TS_ACTOR_CHAN_WAIT] = {"waiting on a channel", "chan_wait", "\u2504", "-", 0, 1, NULL},
  [TS_ACTOR_SPIN] = {"spinning on a mutex", "spin", "\u2593", "s", 1, 1, NULL},
  [TS_ACTOR_FUTEX] = {"in futex (kernel)", "futex", "\u25a0", "k", 1, 0, NULL},
  [TS_ACTOR_MUTEX_PARK] = {"parked on a mutex", "mutex_park", "\u2572", "m", 0, 1, NULL},
  [TS_ACTOR_HOP] = {"hopping", "hop", "\u2192", ">", 0, 0, NULL},
  [TS_ACTOR_CALL_WAIT] = {"waiting for a reply", "call_wait", "\u25e6", "o", 0, 1, NULL},
  [TS_ACTOR_DONE] = {"done", "done", " ", " ", 0, 0, NULL},
};

static const ts_state_info unknown = {"?", "?", "?", "?", 0, 0, NULL};

const ts_state_info *ts_state_get(int s)
{
  return s >= 0 && s < TS_NSTATES ? &table[s] : &unknown;
}
