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

static ev *heap;
static size_t hn;
static uint64_t seq;

static void push(ev e)
{
  size_t i = hn++;
  while (i > 0 && less(&e, &heap[(i - 1) / 2])) {
    heap[i] = heap[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  heap[i] = e;
}

static ev pop(void)
{
  ev top = heap[0], e = heap[--hn];
  size_t i = 0;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= hn)
      break;
    if (c + 1 < hn && less(&heap[c + 1], &heap[c]))
      c++;
    if (!less(&heap[c], &e))
      break;
    heap[i] = heap[c];
    i = c;
  }
  if (hn > 0)
    heap[i] = e;
  return top;
}

static thread *th;
static int owner = -1;
static fifo waiters, spinners;
static long contended;

/* Thread t runs `cost` ns of CPU from now: its end is its next event. */
static void seg(int64_t now, int t, int64_t cost)
{
  push((ev){now + cost, seq++, t, ++th[t].gen});
}

static void take(int64_t now, int t)
{
  owner = t;
  if (th[t].mark >= 0) {
    th[t].wait += now - th[t].mark;
    th[t].mark = -1;
  }
  th[t].sub = 3;
  seg(now, t, MS / 100); /* acquire */
}

static void enter_futex(int64_t now, int t)
{
  th[t].sub = 2;
  seg(now, t, 2 * MS / 100);
}

/* Thread t's step goes on at now (a segment ended, or it was resumed). */
static void step(int64_t now, int t, long k)
{
  thread *x = &th[t];
  for (;;) {
    switch (x->op) {
    case LOCK:
      if (x->sub == 0) {
        if (owner < 0) {
          take(now, t);
          return;
        }
        x->mark = now;
        contended++;
        fifo_push(&spinners, t);
        x->sub = 1;
        seg(now, t, 5 * MS / 100); /* spin */
        return;
      }
      if (x->sub == 1) {
        fifo_remove(&spinners, t);
        if (owner < 0)
          take(now, t);
        else
          enter_futex(now, t);
        return;
      }
      if (x->sub == 2) {
        if (owner < 0) {
          take(now, t);
        } else {
          fifo_push(&waiters, t); /* park: the thread runs nothing until it is resumed */
          x->sub = 4;
        }
        return;
      }
      if (x->sub == 4) { /* resumed: the release made it the holder */
        take(now, t);
        return;
      }
      x->op = CRIT; /* sub 3: acquire paid */
      x->sub = 0;
      seg(now, t, 2 * MS);
      return;
    case CRIT:
      x->op = UNLOCK;
      x->sub = 1;
      seg(now, t, MS / 100); /* release, paid holding it */
      return;
    case UNLOCK:
      if (x->sub == 1) {
        owner = -1;
        int w = fifo_pop(&waiters);
        if (w >= 0) {
          owner = w; /* fifo hand-off; the waiter's thread runs the wake latency later */
          th[w].gen++;
          push((ev){now + MS / 10, seq++, w, th[w].gen});
          x->sub = 2;
          seg(now, t, 3 * MS / 100); /* futex wake */
          return;
        }
        int s = fifo_pop(&spinners);
        if (s >= 0) /* the oldest spinner's spin is cut short: it ends now */
          push((ev){now, seq++, s, ++th[s].gen});
      }
      x->op = OUT;
      x->sub = 0;
      seg(now, t, MS / 2);
      return;
    default: /* OUT ended */
      if (++x->iter == k) {
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
  long k = atol(argv[2]);
  if (n < 1 || k < 1)
    return 2;
  th = calloc((size_t)n, sizeof *th);
  heap = calloc(2 * (size_t)n, sizeof *heap);
  waiters.v = calloc((size_t)n, sizeof *waiters.v);
  spinners.v = calloc((size_t)n, sizeof *spinners.v);
  if (!th || !heap || !waiters.v || !spinners.v)
    return 1;
  waiters.cap = spinners.cap = n;
  uint64_t events = 0;
  int64_t end = 0;
  for (int t = 0; t < n; t++) {
    th[t].mark = -1;
    step(0, t, k);
  }
  while (hn > 0) {
    ev e = pop();
    if (e.gen != th[e.thread].gen)
      continue; /* stale: a cut spin's planned end */
    events++;
    end = e.time;
    step(e.time, e.thread, k);
  }
  int64_t wait = 0;
  uint64_t sum = 0;
  for (int t = 0; t < n; t++) {
    wait += th[t].wait;
    sum += (uint64_t)th[t].done + (uint64_t)th[t].wait;
  }
  printf("mutex_minimal T=%d K=%ld: %llu events, %ld contended, mean acquire wait %.6f ms per task, end %.6f ms, "
         "checksum %llu\n", n, k, (unsigned long long)events, contended, (double)wait / n / 1e6, (double)end / 1e6,
         (unsigned long long)sum);
  free(th);
  free(heap);
  free(waiters.v);
  free(spinners.v);
  return 0;
}
