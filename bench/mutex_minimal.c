/* A yardstick of scripts/bench: T threads on one OS mutex, a closed loop
 * (models/examples/mutex.json at n = workers = T) as a hand-written loop, no
 * framework. Each thread runs one task: K times take the mutex, run 2 ms of
 * CPU, release it, run 0.5 ms outside. The mutex works as tssim's does
 * (docs/design.md, "Locks"): a free mutex is taken and its acquire (0.01 ms)
 * paid; a held one is spun on (0.05 ms; a release cuts the oldest spinner's
 * spin short), then the futex is entered (0.02 ms of kernel CPU) and, still
 * held, the thread parks in a FIFO of waiters; a release (0.01 ms, paid
 * holding it) hands the mutex to the oldest parked waiter, whose thread runs
 * again 0.1 ms later, and the releaser pays the futex wake (0.03 ms). Each
 * thread has a CPU of its own. Every piece of CPU ends in one event; the
 * events sit in a binary heap ordered by (time, sequence) with a
 * generation stamp per thread (a cut spin's old end is stale), the way a
 * discrete-event engine would keep them. It prints the events, the
 * contended acquires, the mean time a task spent acquiring the mutex, the
 * end of the last task and a checksum, so the loop cannot be optimised away.
 *
 * Usage: mutex_minimal T K   (T threads, K acquisitions each) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define MS INT64_C(1000000)

enum { LOCK, CRIT, UNLOCK, OUT };

typedef struct ev {
  int64_t time;
  uint64_t seq;
  int thread;
  uint32_t gen;
} ev;

typedef struct thread {
  int op, sub;
  long iter;
  uint32_t gen;       /* stamps its pending event */
  int64_t mark;       /* contention began (-1: not contended) */
  int64_t wait;       /* time spent acquiring contended */
  int64_t done;
} thread;

typedef struct fifo { /* ring of thread numbers, capacity T */
  int *v;
  int head, len, cap;
} fifo;

static void fifo_push(fifo *f, int x)
{
  f->v[(f->head + f->len++) % f->cap] = x;
}

static int fifo_pop(fifo *f)
{
  if (f->len == 0)
    return -1;
  int x = f->v[f->head];
  f->head = (f->head + 1) % f->cap;
  f->len--;
  return x;
}

static void fifo_remove(fifo *f, int x)
{
  for (int i = 0; i < f->len; i++)
    if (f->v[(f->head + i) % f->cap] == x) {
      for (int j = i; j + 1 < f->len; j++)
        f->v[(f->head + j) % f->cap] = f->v[(f->head + j + 1) % f->cap];
      f->len--;
      return;
    }
}

static int less(const ev *a, const ev *b)
{
  return a->time != b->time ? a->time < b->time : a->seq < b->seq;
}

/* The whole simulation: threads, the event heap, the mutex. */
typedef struct sim {
  thread *th;
  ev *heap;
  size_t hn;
  uint64_t seq;
  int owner;          /* the mutex's holder, or -1 */
  fifo waiters, spinners;
  long contended;
  long k;             /* acquisitions per thread */
} sim;

static void push(sim *s, ev e)
{
  size_t i = s->hn++;
  while (i > 0 && less(&e, &s->heap[(i - 1) / 2])) {
    s->heap[i] = s->heap[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  s->heap[i] = e;
}

static ev pop(sim *s)
{
  ev top = s->heap[0], e = s->heap[--s->hn];
  size_t i = 0;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= s->hn)
      break;
    if (c + 1 < s->hn && less(&s->heap[c + 1], &s->heap[c]))
      c++;
    if (!less(&s->heap[c], &e))
      break;
    s->heap[i] = s->heap[c];
    i = c;
  }
  if (s->hn > 0)
    s->heap[i] = e;
  return top;
}

/* Thread t runs `cost` ns of CPU from now: its end is its next event. */
static void seg(sim *s, int64_t now, int t, int64_t cost)
{
  push(s, (ev){now + cost, s->seq++, t, ++s->th[t].gen});
}

static void take(sim *s, int64_t now, int t)
{
  s->owner = t;
  if (s->th[t].mark >= 0) {
    s->th[t].wait += now - s->th[t].mark;
    s->th[t].mark = -1;
  }
  s->th[t].sub = 3;
  seg(s, now, t, MS / 100); /* acquire */
}

static void enter_futex(sim *s, int64_t now, int t)
{
  s->th[t].sub = 2;
  seg(s, now, t, 2 * MS / 100);
}

/* Thread t's step goes on at now (a segment ended, or it was resumed). */
static void step(sim *s, int64_t now, int t)
{
  thread *x = &s->th[t];
  for (;;) {
    switch (x->op) {
    case LOCK:
      if (x->sub == 0) {
        if (s->owner < 0) {
          take(s, now, t);
          return;
        }
        x->mark = now;
        s->contended++;
        fifo_push(&s->spinners, t);
        x->sub = 1;
        seg(s, now, t, 5 * MS / 100); /* spin */
        return;
      }
      if (x->sub == 1) {
        fifo_remove(&s->spinners, t);
        if (s->owner < 0)
          take(s, now, t);
        else
          enter_futex(s, now, t);
        return;
      }
      if (x->sub == 2) {
        if (s->owner < 0) {
          take(s, now, t);
        } else {
          fifo_push(&s->waiters, t); /* park: the thread runs nothing until it is resumed */
          x->sub = 4;
        }
        return;
      }
      if (x->sub == 4) { /* resumed: the release made it the holder */
        take(s, now, t);
        return;
      }
      x->op = CRIT; /* sub 3: acquire paid */
      x->sub = 0;
      seg(s, now, t, 2 * MS);
      return;
    case CRIT:
      x->op = UNLOCK;
      x->sub = 1;
      seg(s, now, t, MS / 100); /* release, paid holding it */
      return;
    case UNLOCK:
      if (x->sub == 1) {
        s->owner = -1;
        int w = fifo_pop(&s->waiters);
        if (w >= 0) {
          s->owner = w; /* fifo hand-off; the waiter's thread runs the wake latency later */
          s->th[w].gen++;
          push(s, (ev){now + MS / 10, s->seq++, w, s->th[w].gen});
          x->sub = 2;
          seg(s, now, t, 3 * MS / 100); /* futex wake */
          return;
        }
        int sp = fifo_pop(&s->spinners);
        if (sp >= 0) /* the oldest spinner's spin is cut short: it ends now */
          push(s, (ev){now, s->seq++, sp, ++s->th[sp].gen});
      }
      x->op = OUT;
      x->sub = 0;
      seg(s, now, t, MS / 2);
      return;
    default: /* OUT ended */
      if (++x->iter == s->k) {
        x->done = now;
        return;
      }
      x->op = LOCK;
      x->sub = 0;
      continue;
    }
  }
}

int main(int argc, char **argv)
{
  if (argc != 3) {
    fprintf(stderr, "usage: mutex_minimal T K\n");
    return 2;
  }
  int n = atoi(argv[1]);
  sim s = {.owner = -1, .k = atol(argv[2])};
  if (n < 1 || s.k < 1)
    return 2;
  s.th = calloc((size_t)n, sizeof *s.th);
  s.heap = calloc(2 * (size_t)n, sizeof *s.heap);
  s.waiters.v = calloc((size_t)n, sizeof *s.waiters.v);
  s.spinners.v = calloc((size_t)n, sizeof *s.spinners.v);
  if (!s.th || !s.heap || !s.waiters.v || !s.spinners.v)
    return 1;
  s.waiters.cap = s.spinners.cap = n;
  uint64_t events = 0;
  int64_t end = 0;
  for (int t = 0; t < n; t++) {
    s.th[t].mark = -1;
    step(&s, 0, t);
  }
  while (s.hn > 0) {
    ev e = pop(&s);
    if (e.gen != s.th[e.thread].gen)
      continue; /* stale: a cut spin's planned end */
    events++;
    end = e.time;
    step(&s, e.time, e.thread);
  }
  int64_t wait = 0;
  uint64_t sum = 0;
  for (int t = 0; t < n; t++) {
    wait += s.th[t].wait;
    sum += (uint64_t)s.th[t].done + (uint64_t)s.th[t].wait;
  }
  printf("mutex_minimal T=%d K=%ld: %llu events, %ld contended, mean acquire wait %.6f ms per task, end %.6f ms, "
         "checksum %llu\n", n, s.k, (unsigned long long)events, s.contended, (double)wait / n / 1e6, (double)end / 1e6,
         (unsigned long long)sum);
  free(s.th);
  free(s.heap);
  free(s.waiters.v);
  free(s.spinners.v);
  return 0;
}
