/* The sweep's runner: tasks and threads. Points are taken in the sweep's
 * order; a replication is a task. Tasks run on the calling thread (one job)
 * or on worker threads, which take the earliest queued task in the sweep's
 * order; the calling thread folds the rep_outs into their points strictly
 * in that order, so every sum, every pooled array and every line of samples
 * text comes out as one thread would make it. Invariant: the fold cursor
 * (cur, r) is the earliest replication not yet folded; every task before it
 * is folded and freed. */
#include "run/sweep.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/sweep_internal.h"

int ts_sweep_cores(void)
{
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n >= 1 ? (int)(n < 1024 ? n : 1024) : 1;
}

typedef struct task {
  point_run *pr;
  size_t seq;        /* the point's position among the points run */
  int rep;
  int state;         /* QUEUED, RUNNING, DONE */
  rep_out out;
} task;

enum { QUEUED, RUNNING, DONE };

typedef struct runner {
  const ts_sweep_spec *spec;
  ts_sweep *out;
  pthread_mutex_t mu;
  pthread_cond_t work, done;
  task **t;          /* tasks not yet folded */
  size_t nt, cap;
  point_run **open;  /* [points run]: opened and not yet emitted */
  size_t nopen;
  size_t cur_seq;    /* the fold cursor: the task folded next (with threads, under mu) */
  int cur_rep;
  int quit;
  int threads;
} runner;

static task *task_add(runner *R, point_run *pr, size_t seq, int rep)
{
  if (R->nt == R->cap) {
    size_t cap = R->cap ? R->cap * 2 : 16;
    task **v = realloc(R->t, cap * sizeof *v);
    if (!v)
      return NULL;
    R->t = v;
    R->cap = cap;
  }
  task *t = calloc(1, sizeof *t);
  if (!t)
    return NULL;
  t->pr = pr;
  t->seq = seq;
  t->rep = rep;
  t->state = QUEUED;
  R->t[R->nt++] = t;
  return t;
}

/* The earliest queued task in the sweep's order, or NULL. */
static task *earliest_queued(runner *R)
{
  task *best = NULL;
  for (size_t i = 0; i < R->nt; i++) {
    task *t = R->t[i];
    if (t->state == QUEUED && (!best || t->seq < best->seq || (t->seq == best->seq && t->rep < best->rep)))
      best = t;
  }
  return best;
}

static int text_flush(void *ctx, const char *p, size_t n)
{
  const ts_sweep_spec *spec = ctx;
  return spec->write_samples(spec->samples_ctx, p, n);
}

/* Run task t. Its samples stream into write_samples when it is the one
 * folded next (everything before it is written, and the calling thread
 * waits for it, writing nothing meanwhile); else they wait in memory for
 * their turn. Called with R->mu held when there are threads. */
static void task_run(runner *R, task *t, int at_cursor)
{
  if (at_cursor && R->spec->write_samples) {
    t->out.text.flush = text_flush;
    t->out.text.ctx = (void *)R->spec;
  }
  ts__rep_run(t->pr, t->rep, R->out, &t->out);
}

static void *worker_main(void *arg)
{
  runner *R = arg;
  pthread_mutex_lock(&R->mu);
  for (;;) {
    if (R->quit)
      break;
    task *t = earliest_queued(R);
    if (!t) {
      pthread_cond_wait(&R->work, &R->mu);
      continue;
    }
    t->state = RUNNING;
    int at_cursor = t->seq == R->cur_seq && t->rep == R->cur_rep;
    pthread_mutex_unlock(&R->mu);
    task_run(R, t, at_cursor);
    pthread_mutex_lock(&R->mu);
    t->state = DONE;
    pthread_cond_broadcast(&R->done);
  }
  pthread_mutex_unlock(&R->mu);
  return NULL;
}

/* Wait for task t (queued or running) to be done; with no threads, run it here. */
static void task_wait(runner *R, task *t)
{
  if (R->threads == 0) {
    if (t->state == QUEUED) {
      t->state = RUNNING;
      task_run(R, t, 1);
      t->state = DONE;
    }
    return;
  }
  pthread_mutex_lock(&R->mu);
  while (t->state != DONE)
    pthread_cond_wait(&R->done, &R->mu);
  pthread_mutex_unlock(&R->mu);
}

/* Remove folded task t from the list and free it. */
static void task_drop(runner *R, task *t)
{
  if (R->threads)
    pthread_mutex_lock(&R->mu);
  for (size_t i = 0; i < R->nt; i++)
    if (R->t[i] == t) {
      memmove(R->t + i, R->t + i + 1, (R->nt - i - 1) * sizeof *R->t);
      R->nt--;
      break;
    }
  if (R->threads)
    pthread_mutex_unlock(&R->mu);
  ts__rep_out_finish(&t->out, t->pr);
  free(t);
}

/* Queue replications [from, to) of pr. Returns 0 or -1 (out of memory). */
static int queue_reps(runner *R, point_run *pr, size_t seq, int from, int to)
{
  if (R->threads)
    pthread_mutex_lock(&R->mu);
  int rc = 0;
  for (int r = from; r < to && rc == 0; r++)
    rc = task_add(R, pr, seq, r) ? 0 : -1;
  if (R->threads) {
    pthread_cond_broadcast(&R->work);
    pthread_mutex_unlock(&R->mu);
  }
  return rc;
}

static task *find_task(runner *R, size_t seq, int rep)
{
  task *found = NULL;
  if (R->threads)
    pthread_mutex_lock(&R->mu);
  for (size_t i = 0; i < R->nt && !found; i++)
    if (R->t[i]->seq == seq && R->t[i]->rep == rep)
      found = R->t[i];
  if (R->threads)
    pthread_mutex_unlock(&R->mu);
  return found;
}

/* pass 2: run the points in order, folding each replication as it comes. */
/* Keep the window of tasks full, in the sweep's order: the next
 * replications asked for of the points open, then new points. Returns 0 or
 * TS_SWEEP_NOMEM. */
static int fill(runner *R, combo_run *crs, const unsigned char *ci_col, const todo *td, size_t ntodo, size_t cur,
                size_t *opened)
{
  size_t window = R->threads ? (size_t)R->threads * 2 : 1;
  while (R->nt < window) {
    size_t p = cur;
    while (p < *opened && R->open[p]->queued >= R->open[p]->target)
      p++;
    if (p < *opened) {
      point_run *pr = R->open[p];
      if (queue_reps(R, pr, p, pr->queued, pr->queued + 1))
        return TS_SWEEP_NOMEM;
      pr->queued++;
      continue;
    }
    if (*opened == ntodo)
      break;
    const todo *d = &td[*opened];
    point_run *pr = ts__point_open(R->spec, &crs[d->combo], d->combo, d->n, d->workers, d->index);
    if (!pr)
      return TS_SWEEP_NOMEM;
    ts__point_next_batch(pr, ci_col);
    R->open[(*opened)++] = pr;
  }
  return 0;
}

/* pass 2: run the points in order, folding each replication as it comes. */
static int run_points(runner *R, combo_run *crs, const unsigned char *ci_col, const todo *td, size_t ntodo)
{
  const ts_sweep_spec *spec = R->spec;
  ts_sweep *out = R->out;
  size_t total = out->points_total;
  point_run **open = R->open = calloc(ntodo + 1, sizeof *open);
  if (!open) {
    snprintf(out->errmsg, sizeof out->errmsg, "out of memory");
    return TS_SWEEP_NOMEM;
  }
  size_t opened = 0, cur = 0;
  R->nopen = ntodo;
  int r = 0, rc = 0;
  while (cur < ntodo && rc == 0) {
    if (fill(R, crs, ci_col, td, ntodo, cur, &opened)) {
      snprintf(out->errmsg, sizeof out->errmsg, "out of memory");
      rc = TS_SWEEP_NOMEM;
      break;
    }
    point_run *pr = open[cur];
    if (R->threads) { /* the cursor: a task that starts now at it streams its samples */
      pthread_mutex_lock(&R->mu);
      R->cur_seq = cur;
      R->cur_rep = r;
      pthread_mutex_unlock(&R->mu);
    }
    task *t = find_task(R, cur, r);
    if (!t) {
      snprintf(out->errmsg, sizeof out->errmsg, "internal error: replication %d of point %zu was never queued", r,
               cur);
      rc = TS_SWEEP_INTERNAL;
      break;
    }
    task_wait(R, t);
    rc = ts__rep_fold(pr, r, &t->out, out);
    task_drop(R, t);
    if (rc)
      break;
    if (spec->progress && spec->progress(spec->progress_data, pr->index, total, r)) {
      rc = ts__point_fail(out, TS_SWEEP_STOPPED, pr, r, "stopped");
      break;
    }
    r++;
    if (r < pr->target)
      continue;
    pr->reps = pr->target;
    if (ts__point_next_batch(pr, ci_col) > 0)
      continue; /* more replications: the next fill queues them */
    if (pr->reps > out->max_replications)
      out->max_replications = pr->reps;
    if (ts__point_emit(pr, out)) {
      rc = ts__point_fail(out, TS_SWEEP_NOMEM, pr, 0, "out of memory");
      break;
    }
    ts__point_note(pr, ci_col, out);
    out->points_done++;
    ts__point_finish(pr);
    open[cur++] = NULL;
    r = 0;
  }
  /* stop the threads first: tasks still running read the points */
  if (R->threads) {
    pthread_mutex_lock(&R->mu);
    R->quit = 1;
    pthread_cond_broadcast(&R->work);
    pthread_mutex_unlock(&R->mu);
  }
  return rc;
}

int ts__sweep_points(const ts_sweep_spec *spec, ts_sweep *out, combo_run *crs, const unsigned char *ci_col,
                     const todo *td, size_t ntodo)
{
  runner R = {.spec = spec, .out = out};
  pthread_t *th = NULL;
  int started = 0;
  if (spec->jobs > 1) {
    int want = spec->jobs;
    th = calloc((size_t)want, sizeof *th);
    if (th && pthread_mutex_init(&R.mu, NULL) == 0) {
      pthread_cond_init(&R.work, NULL);
      pthread_cond_init(&R.done, NULL);
      R.threads = want;
      for (int i = 0; i < want; i++)
        if (pthread_create(&th[i], NULL, worker_main, &R) == 0)
          started++;
      if (started == 0) { /* no thread: run here */
        R.threads = 0;
        pthread_cond_destroy(&R.work);
        pthread_cond_destroy(&R.done);
        pthread_mutex_destroy(&R.mu);
      }
    }
  }
  int rc = run_points(&R, crs, ci_col, td, ntodo);
  if (R.threads) {
    for (int i = 0; i < started; i++)
      pthread_join(th[i], NULL);
    pthread_cond_destroy(&R.work);
    pthread_cond_destroy(&R.done);
    pthread_mutex_destroy(&R.mu);
  }
  free(th);
  /* what is left after a failure: tasks not folded, then the points opened */
  for (size_t i = 0; i < R.nt; i++) {
    ts__rep_out_finish(&R.t[i]->out, R.t[i]->pr);
    free(R.t[i]);
  }
  free(R.t);
  for (size_t i = 0; R.open && i < R.nopen; i++)
    ts__point_finish(R.open[i]);
  free(R.open);
  return rc;
}
