/* Rendering: every row is built as an array of cells, each cell a tally of
 * the values that covered its interval, then printed through a glyph table.
 * Values: a worker row's actor glyph (actors 0-61 their own, every later one
 * OTHER) or LOOP; an actor state (actor rows); 1 for "holds a lock" (lock
 * rows); BLANK for idle, not arrived, done or not holding. A row has at most
 * 64 distinct values (62 actor glyphs, OTHER and LOOP), so the tally never
 * drops one: a cell's covered time is exact, and a worker cell is blank only
 * when the worker was idle for most of it. An actor waiting for a call's
 * reply (TS_ACTOR_CALL_WAIT) is split by the run's calls
 * (ts_timeline_call_wait_parts): QUEUED_CALL from its request's arrival at
 * the server to the start of its service (or its end when it never started:
 * refused, timed out), the state itself for the rest (the request and reply legs); in service the
 * actor runs the handler, drawn in the handler's own states. A window (--from, --to) draws
 * [t0, t1) of the run: times are clipped to it and column k covers
 * t0 + [k, k + 1) * step. */
#include "viz/gantt.h"

#include <stdlib.h>
#include <string.h>

#define BLANK (-1)
#define LOOP (-2)
#define QUEUED_CALL TS_NSTATES /* an actor row's value: its call waits in the server's queue */
#define NGLYPHS 62     /* actors with a glyph of their own: 0-9a-zA-Z */
#define OTHER NGLYPHS  /* every later actor: '*' */
#define TALLY 66       /* more than the distinct values of any row */

typedef struct tally {
  int v[TALLY];
  ts_time d[TALLY];
  int n;
} tally;

typedef struct chart {
  const ts_timeline *tl;
  const ts_gantt_opts *o;
  ts_time t0, t1;    /* the window drawn: [t0, t1), within [0, the run's end] */
  int windowed;      /* narrower than the run: the rows drawn are the actors present in it */
  ts_time step;      /* simulated time per column */
  int cols;
  ts_time unit;      /* ns per unit of the labels */
  const char *uname;
  int label_w;       /* row label width, with its trailing space */
  int shown;         /* actor rows drawn: rows[0 .. shown - 1] */
  int *rows;         /* the actors drawn, in order */
  tally *cells;
  int mixed;         /* some cell drawn held several values: it shows the one that filled most of it */
} chart;

static void add(tally *t, int v, ts_time d)
{
  for (int i = 0; i < t->n; i++)
    if (t->v[i] == v) {
      t->d[i] += d;
      return;
    }
  if (t->n < TALLY) {
    t->v[t->n] = v;
    t->d[t->n++] = d;
  }
}

/* The value covering most of a cell of length len; the uncovered rest is
 * BLANK. With `busy_wins` (worker rows) the cell is BLANK only when the
 * uncovered rest exceeds all the values together: a worker busy for most of
 * a column shows busy, even when many actors shared that column. */
static int best(const tally *t, ts_time len, int busy_wins)
{
  ts_time covered = 0, bd = -1;
  int bv = BLANK;
  for (int i = 0; i < t->n; i++)
    covered += t->d[i];
  for (int i = 0; i < t->n; i++)
    if (t->d[i] > bd) {
      bd = t->d[i];
      bv = t->v[i];
    }
  return len - covered > (busy_wins ? covered : bd) ? BLANK : bv;
}

/* How many values other than BLANK (idle, not arrived, done) cell t holds:
 * with two or more, the one drawn hides another. */
static int drawn_values(const tally *t)
{
  int n = 0;
  for (int i = 0; i < t->n; i++)
    n += t->v[i] != BLANK;
  return n;
}

/* Tally value v over [t0, t1) (clipped to the window) into the row's cells. */
static void span(chart *c, int v, ts_time t0, ts_time t1)
{
  t0 = t0 > c->t0 ? t0 - c->t0 : 0;
  t1 = (t1 < c->t1 ? t1 : c->t1) - c->t0;
  if (t1 <= t0)
    return;
  int c0 = (int)(t0 / c->step), c1 = (int)((t1 - 1) / c->step);
  for (int k = c0; k <= c1 && k < c->cols; k++) {
    ts_time lo = (ts_time)k * c->step, hi = lo + c->step;
    add(&c->cells[k], v, (t1 < hi ? t1 : hi) - (t0 > lo ? t0 : lo));
  }
}

static void clear(chart *c)
{
  memset(c->cells, 0, (size_t)c->cols * sizeof *c->cells);
}

static ts_time cell_len(const chart *c, int k)
{
  ts_time lo = (ts_time)k * c->step, hi = lo + c->step, len = c->t1 - c->t0;
  return (hi < len ? hi : len) - lo;
}

/* A time in the chart's unit, with up to 3 decimals and no trailing zeros. */
static void fmt_time(const chart *c, ts_time t, char *buf, size_t len)
{
  if (t < 0) /* times are never negative; keep the digits below in range */
    t = 0;
  long long whole = t / c->unit;
  int frac = (int)((t % c->unit) * 1000 / c->unit); /* in [0, 999] */
  if (frac <= 0 || frac > 999) {
    snprintf(buf, len, "%lld", whole);
    return;
  }
  char f[8];
  snprintf(f, sizeof f, "%03d", frac);
  for (int i = 2; i > 0 && f[i] == '0'; i--)
    f[i] = '\0';
  snprintf(buf, len, "%lld.%.3s", whole, f);
}

static const char *actor_glyph(int a, char *buf)
{
  static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  buf[0] = a < NGLYPHS ? digits[a] : '*';
  buf[1] = '\0';
  return buf;
}

static const char *state_glyph(int s, int ascii)
{
  return ascii ? ts_state_get(s)->ascii : ts_state_get(s)->glyph;
}

/* The widest row label drawn: a longer one keeps its head and its tail
 * (a pool's thread index, an actor's class) around "..". */
#define GANTT_MAX_LABEL 24

static void print_row(chart *c, FILE *out, const char *label, int kind, const char *note)
{
  const char *bar = c->o->ascii ? "|" : "│";
  int len = (int)strlen(label), room = c->label_w - 2;
  if (len > room) {
    int head = (room - 2) / 2, tail = room - 2 - head;
    fprintf(out, "%.*s..%s  %s", head, label, label + len - tail, bar);
  } else
    fprintf(out, "%-*s%s", c->label_w, label, bar);
  for (int k = 0; k < c->cols; k++) {
    int v = best(&c->cells[k], cell_len(c, k), kind == 'w');
    c->mixed |= drawn_values(&c->cells[k]) > 1;
    char g[2];
    if (v == BLANK)
      fputc(' ', out);
    else if (kind == 'w')
      fputs(v == LOOP ? "~" : actor_glyph(v, g), out);
    else if (kind == 'a')
      fputs(v == QUEUED_CALL ? (c->o->ascii ? "q" : "\u25cf") : state_glyph(v, c->o->ascii), out);
    else
      fputs(c->o->ascii ? "=" : "━", out);
  }
  fprintf(out, "%s%s%s\n", bar, note && *note ? " " : "", note ? note : "");
}

static void worker_row(chart *c, FILE *out, int w)
{
  const ts_timeline *tl = c->tl;
  ts_time busy = 0;
  clear(c);
  for (size_t i = 0; i < tl->npieces; i++) {
    const ts_tl_piece *p = &tl->pieces[i];
    if (p->worker != w)
      continue;
    span(c, p->actor < 0 ? LOOP : p->actor < NGLYPHS ? p->actor : OTHER, p->t0, p->t1);
    ts_time t0 = p->t0 > c->t0 ? p->t0 : c->t0, t1 = p->t1 < c->t1 ? p->t1 : c->t1;
    busy += c->windowed ? (t1 > t0 ? t1 - t0 : 0) : p->t1 - p->t0;
  }
  char label[64], note[32];
  ts_timeline_worker_name(tl, w, label, sizeof label);
  ts_time len = c->t1 - c->t0;
  snprintf(note, sizeof note, "busy %d%%", (int)(100 * busy / (len > 0 ? len : 1)));
  print_row(c, out, label, 'w', note);
}

/* How an actor's row ends (the legend's order). */
enum { END_DONE, END_DROPPED, END_HORIZON, END_STUCK, END_NOT_ARRIVED, NENDS };

/* How actor a's row ends: done; dropped (its arrival refused by a full
 * worker, tl->dropped: the model marks it done at once, without a done
 * time); else not done: "stuck" when the run deadlocked (exit status 1),
 * "at horizon" (the horizon stopped it running or waiting; nothing is
 * wrong), "not arrived" before its arrival. */
static int end_kind(const ts_timeline *tl, int a)
{
  if (tl->dropped[a])
    return END_DROPPED;
  if (tl->stats[a].done >= 0)
    return END_DONE;
  if (tl->state_at[a] == tl->state_at[a + 1])
    return END_NOT_ARRIVED;
  return tl->stuck ? END_STUCK : END_HORIZON;
}

/* The note ending actor a's row, into buf: "done T", "dropped at T" (its
 * arrival), "at horizon", "stuck" or "not arrived". */
static void end_note(const chart *c, int a, char *buf, size_t len)
{
  static const char *const fixed[] = {[END_HORIZON] = "at horizon", [END_STUCK] = "stuck",
                                      [END_NOT_ARRIVED] = "not arrived"};
  const ts_actor_stats *s = &c->tl->stats[a];
  int k = end_kind(c->tl, a);
  char t[32];
  fmt_time(c, k == END_DROPPED ? s->arrive : s->done, t, sizeof t);
  if (k == END_DONE || k == END_DROPPED)
    snprintf(buf, len, "%s %s %s", k == END_DONE ? "done" : "dropped at", t, c->uname);
  else
    snprintf(buf, len, "%s", fixed[k]);
}

/* A part of a wait for a reply (ts_timeline_call_wait_parts) into the chart c (data). */
static void span_part(void *data, const ts_tl_callspan *q, ts_time t0, ts_time t1)
{
  span(data, q ? QUEUED_CALL : TS_ACTOR_CALL_WAIT, t0, t1);
}

static void actor_rows(chart *c, FILE *out, int a)
{
  const ts_timeline *tl = c->tl;
  size_t lo = tl->state_at[a], hi = tl->state_at[a + 1];
  ts_time prev_t = 0;
  int prev = TS_ACTOR_NEW;
  size_t k = tl->call_span_at[a];
  clear(c);
  for (size_t i = lo; i <= hi; i++) {
    ts_time t = i < hi ? tl->states[i].t : tl->end;
    if (prev == TS_ACTOR_CALL_WAIT)
      ts_timeline_call_wait_parts(tl, a, &k, prev_t, t, span_part, c);
    else
      span(c, prev == TS_ACTOR_NEW || prev == TS_ACTOR_DONE ? BLANK : prev, prev_t, t);
    if (i < hi) {
      prev_t = t;
      prev = tl->states[i].state;
    }
  }
  char label[96], note[64];
  ts_timeline_actor_name(tl, a, label, sizeof label);
  end_note(c, a, note, sizeof note);
  print_row(c, out, label, 'a', note);
  if (tl->model->nlocks == 0)
    return;
  clear(c);
  int held = 0;
  ts_time since = 0;
  for (size_t i = tl->lock_at[a]; i < tl->lock_at[a + 1]; i++) {
    const ts_tl_lock *l = &tl->locks[i];
    if (l->held && held++ == 0)
      since = l->t;
    else if (!l->held && held > 0 && --held == 0)
      span(c, 1, since, l->t);
  }
  if (held > 0)
    span(c, 1, since, tl->end);
  print_row(c, out, "  lock", 'l', NULL);
}

static void axis(chart *c, FILE *out)
{
  static const int spacing[] = {10, 20, 50, 100, 200, 500, 1000};
  char lab[32];
  fmt_time(c, c->t0 + (ts_time)c->cols * c->step, lab, sizeof lab);
  int every = 10;
  for (size_t i = 0; i < sizeof spacing / sizeof *spacing && every < (int)strlen(lab) + 2; i++)
    every = spacing[i];
  char *row = malloc((size_t)c->cols + sizeof lab + 1);
  if (!row)
    return;
  size_t len = 0;
  for (int k = 0; k < c->cols; k += every) {
    while ((int)len < k)
      row[len++] = ' ';
    fmt_time(c, c->t0 + (ts_time)k * c->step, lab, sizeof lab);
    memcpy(row + len, lab, strlen(lab));
    len += strlen(lab);
  }
  row[len] = '\0';
  fprintf(out, "%-*s %s %s\n", c->label_w, "", row, c->uname);
  fprintf(out, "%-*s ", c->label_w, "");
  for (int k = 0; k < c->cols; k++)
    fputs(k % every == 0 ? (c->o->ascii ? "+" : "┬") : (c->o->ascii ? "-" : "─"), out);
  fputc('\n', out);
  free(row);
}

/* Print legend items, wrapped to the width, after a heading. */
static void legend_line(const chart *c, FILE *out, const char *head, const char *const *items, int n)
{
  int col = (int)strlen(head), indent = col;
  fputs(head, out);
  for (int i = 0; i < n; i++) {
    int w = 0;
    for (const unsigned char *p = (const unsigned char *)items[i]; *p; p++)
      w += (*p & 0xC0) != 0x80; /* count characters, not UTF-8 bytes */
    if (col > indent && col + 2 + w > c->o->width) {
      fprintf(out, "\n%*s", indent, "");
      col = indent;
    }
    fprintf(out, "%s%s", col > indent ? "  " : "", items[i]);
    col += (col > indent ? 2 : 0) + w;
  }
  fputc('\n', out);
}

/* Print text (ASCII, words separated by single spaces), word-wrapped to the width, after a heading. */
static void legend_text(const chart *c, FILE *out, const char *head, const char *text)
{
  int indent = (int)strlen(head), col = indent;
  fputs(head, out);
  while (*text) {
    int w = (int)strcspn(text, " ");
    if (col > indent && col + 1 + w > c->o->width) {
      fprintf(out, "\n%*s", indent, "");
      col = indent;
    }
    fprintf(out, "%s%.*s", col > indent ? " " : "", w, text);
    col += (col > indent ? 1 : 0) + w;
    text += w + (text[w] == ' ');
  }
  fputc('\n', out);
}

/* Whether a thread of tl may have run nothing while a task of it was
 * runnable: *parked, one blocked (a task parked on a mutex); *waking, a wake
 * with a declared wake latency (the woken thread runs that much later). */
static void thread_stalls(const ts_timeline *tl, int *parked, int *waking)
{
  const ts_model *m = tl->model;
  *parked = tl->nblocks > 0;
  *waking = 0;
  for (size_t i = 0; i < m->nlocks && tl->nwakes > 0; i++)
    *waking |= m->locks[i].kind == TS_LOCK_MUTEX && (m->locks[i].wake_latency.mean > 0 || m->locks[i].wake_latency.mean_ms);
  for (size_t i = 0; i < m->nchans && tl->nwakes > 0; i++)
    *waking |= m->chans[i].wake_latency.mean > 0 || m->chans[i].wake_latency.mean_ms;
}

static void legend(chart *c, FILE *out)
{
  int a = c->o->ascii, parked, waking;
  char run[32], q[48], r[160], io[16], lw[24], idle[96];
  thread_stalls(c->tl, &parked, &waking);
  /* a worker blocked by a task parked on a mutex, or waking up to run a task, runs nothing: blank as idle */
  snprintf(idle, sizeof idle, "blank idle%s%s", parked ? ", blocked (a task of it parked on a mutex)" : "",
           waking ? " or waking up (wake latency)" : "");
  const char *wk[] = {"0-9a-zA-Z the actor running (* beyond 61)", "~ loop overhead", idle};
  snprintf(run, sizeof run, "%s running", state_glyph(TS_ACTOR_RUNNING, a));
  snprintf(q, sizeof q, "%s queued (time-slice queue)", state_glyph(TS_ACTOR_QUEUED, a));
  /* ready: an event loop's I/O callback queue, or a thread's run queue (ts_state_info.thread_name), by the
   * worker each ready actor waited on (after a hop or a call's admission, not its home); none ready: by the
   * kinds of worker */
  int threads = 0, loops = 0;
  for (int x = 0; x < c->tl->nactors; x++)
    for (size_t i = c->tl->state_at[x]; i < c->tl->state_at[x + 1]; i++) {
      const ts_tl_state *e = &c->tl->states[i];
      ts_time t1 = i + 1 < c->tl->state_at[x + 1] ? e[1].t : c->tl->end;
      if (e->state != TS_ACTOR_READY || t1 <= e->t) /* a wait that took no time is not drawn */
        continue;
      int on = ts_timeline_entry_on_thread(c->tl, e);
      threads += on;
      loops += !on;
    }
  for (int w = 0; !threads && !loops && w < c->tl->nworkers; w++)
    if (ts_timeline_worker_is_thread(c->tl, w))
      threads++;
    else
      loops++;
  const char *why = parked && waking ? ": its thread busy, parked on a mutex or waking up"
                    : parked            ? ": its thread busy or parked on a mutex"
                    : waking            ? ": its thread busy or waking up"
                                        : "";
  snprintf(r, sizeof r, "%s %s%s)", state_glyph(TS_ACTOR_READY, a),
           !threads ? "callback wait (I/O callback queue" : loops ? "callback wait (I/O callback queue) or runnable (run queue"
                                                               : "runnable (run queue",
           threads ? why : "");
  snprintf(io, sizeof io, "%s I/O", state_glyph(TS_ACTOR_IO, a));
  snprintf(lw, sizeof lw, "%s lock wait", state_glyph(TS_ACTOR_LOCK_WAIT, a));
  /* the five states of every model, then the others this chart shows, from the state table */
  int seen[TS_NSTATES] = {0};
  for (size_t i = 0; i < c->tl->nstates; i++)
    seen[c->tl->states[i].state] = 1;
  char more[TS_NSTATES][64];
  const char *ac[TS_NSTATES + 8] = {run, q, r, io, lw};
  int n = 5;
  ts_time call_parts[2] = {0, 0}; /* the run's waits for a reply: in a server's queue, the rest */
  if (seen[TS_ACTOR_CALL_WAIT] && c->tl->ncalls > 0)
    for (int x = 0; x < c->tl->nactors; x++)
      for (size_t i = c->tl->state_at[x], k = c->tl->call_span_at[x]; i < c->tl->state_at[x + 1]; i++)
        if (c->tl->states[i].state == TS_ACTOR_CALL_WAIT)
          ts_timeline_call_wait_parts(c->tl, x, &k, c->tl->states[i].t,
                                      i + 1 < c->tl->state_at[x + 1] ? c->tl->states[i + 1].t : c->tl->end,
                                      ts_timeline_call_part_add, call_parts);
  for (int st = 0; st < TS_NSTATES; st++) {
    const ts_state_info *info = ts_state_get(st);
    if (!seen[st] || st == TS_ACTOR_RUNNING || st == TS_ACTOR_QUEUED || st == TS_ACTOR_READY || st == TS_ACTOR_IO ||
        st == TS_ACTOR_LOCK_WAIT || st == TS_ACTOR_NEW || st == TS_ACTOR_DONE)
      continue;
    if (st == TS_ACTOR_CALL_WAIT && call_parts[0] > 0)
      ac[n++] = a ? "q " TS_TL_CALL_QUEUED : "\u25cf " TS_TL_CALL_QUEUED;
    if (st == TS_ACTOR_CALL_WAIT && call_parts[0] > 0 && call_parts[1] == 0)
      continue;
    snprintf(more[st], sizeof more[st], "%s %s%s", a ? info->ascii : info->glyph, info->name,
             st == TS_ACTOR_CALL_WAIT && call_parts[0] > 0 ? ": request or reply on the way" : "");
    ac[n++] = more[st];
  }
  ac[n++] = "blank not arrived or done";
  if (c->tl->model->nlocks)
    ac[n++] = a ? "= lock held" : "━ lock held";
  legend_line(c, out, "workers: ", wk, 3);
  legend_line(c, out, "actors:  ", ac, n);
  if (call_parts[0] > 0)
    legend_text(c, out, "calls:   ", "a call waits in the server's queue until the server starts serving it; its "
                "service runs the call's handler, drawn in the handler's own states (running on the server's "
                "worker, ...)");
  if (c->mixed) /* round robin of 16 actors in one column per 8 slices: the worker row shows every 8th */
    legend_text(c, out, "cells:   ", "a cell shows what filled most of its column; what else ran or waited there "
                "is not drawn (a narrower window, --from and --to, shows it)");
  /* the notes ending the actor rows drawn, in this order */
  static const char *const ends[NENDS] = {
    [END_DONE] = "done T: finished at T",
    [END_DROPPED] = "dropped at T: arrived at T at a worker holding its capacity, and never ran",
    [END_HORIZON] = "at horizon: running or waiting when the run ended",
    [END_STUCK] = "stuck: waiting in a deadlock (exit status 1)",
    [END_NOT_ARRIVED] = "not arrived: none of its steps ran"};
  int used[NENDS] = {0};
  for (int i = 0; i < c->shown; i++)
    used[end_kind(c->tl, c->rows[i])] = 1;
  const char *en[NENDS];
  int ne = 0;
  for (int e = 0; e < NENDS; e++)
    if (used[e])
      en[ne++] = ends[e];
  if (ne)
    legend_line(c, out, "ends:    ", en, ne);
}

static void pick_unit(chart *c)
{
  ts_time end = c->t1 - c->t0;
  int ascii = c->o->ascii;
  if (end < TS_NS_PER_US) {
    c->unit = 1;
    c->uname = "ns";
  } else if (end < TS_NS_PER_MS) {
    c->unit = TS_NS_PER_US;
    c->uname = ascii ? "us" : "µs";
  } else if (end < 100 * INT64_C(1000000000)) {
    c->unit = TS_NS_PER_MS;
    c->uname = "ms";
  } else {
    c->unit = INT64_C(1000000000);
    c->uname = "s";
  }
}

/* The smallest 1-2-5 step with at most `avail` columns. */
static void pick_step(chart *c, int avail)
{
  ts_time end = c->t1 - c->t0 > 0 ? c->t1 - c->t0 : 1;
  static const int m[] = {1, 2, 5};
  for (ts_time p = 1; p <= INT64_MAX / 10; p *= 10)
    for (int i = 0; i < 3; i++) {
      ts_time s = p * m[i];
      if ((end + s - 1) / s <= avail) {
        c->step = s;
        c->cols = (int)((end + s - 1) / s);
        return;
      }
    }
}

/* Whether actor a is present in the window: dropped in it, or arrived
 * before its end and not done before its start. */
static int present(const chart *c, int a)
{
  const ts_timeline *tl = c->tl;
  const ts_actor_stats *s = &tl->stats[a];
  if (tl->dropped[a])
    return s->arrive >= c->t0 && s->arrive < c->t1;
  if (tl->state_at[a] == tl->state_at[a + 1])
    return 0;
  ts_time first = tl->states[tl->state_at[a]].t;
  return first < c->t1 && (s->done < 0 || s->done > c->t0 || first >= c->t0);
}

/* The rows to draw into c->rows and c->shown: the first max_actors actors
 * that arrived (those that had not are counted apart: not_drawn), or of a
 * window, of those present in it. Returns how many are present (arrived,
 * without a window), or -1 when memory runs out. */
static int pick_rows(chart *c)
{
  const ts_timeline *tl = c->tl;
  c->rows = malloc(((size_t)tl->nactors + 1) * sizeof *c->rows);
  if (!c->rows)
    return -1;
  int npresent = 0;
  for (int a = 0; a < tl->nactors; a++)
    if (c->windowed ? present(c, a) : end_kind(tl, a) != END_NOT_ARRIVED) {
      if (npresent < c->o->max_actors)
        c->rows[c->shown++] = a;
      npresent++;
    }
  return npresent;
}

/* What was not drawn, one line each. */
static void not_drawn(const chart *c, FILE *out, int npresent)
{
  const ts_timeline *tl = c->tl;
  int more = npresent - c->shown;
  if (c->windowed) {
    int outside = tl->nactors - npresent;
    if (more > 0)
      fprintf(out, "(%d more actor%s in the window not drawn: see --max-actors)\n", more, more == 1 ? "" : "s");
    if (outside > 0)
      fprintf(out, "(%d actor%s outside the window: not arrived by its end or ended before its start)\n", outside,
              outside == 1 ? "" : "s");
    return;
  }
  int unarrived = tl->nactors - npresent;
  if (more == 0 && unarrived == 0)
    return;
  if (more == 0)
    fprintf(out, "(%d %sactor%s, none arrived by the end)\n", unarrived, c->shown ? "more " : "",
            unarrived == 1 ? "" : "s");
  else if (unarrived > 0)
    fprintf(out, "(%d more actor%s not drawn: see --max-actors; and %d that had not arrived by the end)\n", more,
            more == 1 ? "" : "s", unarrived);
  else
    fprintf(out, "(%d more actor%s not drawn: see --max-actors)\n", more, more == 1 ? "" : "s");
}

int ts_gantt_render(FILE *out, const ts_timeline *tl, const ts_gantt_opts *o)
{
  if (o->width < TS_GANTT_MIN_WIDTH)
    return -1;
  chart c = {.tl = tl, .o = o, .t0 = o->from > 0 ? o->from : 0, .t1 = tl->end};
  if (o->to > 0 && o->to < c.t1)
    c.t1 = o->to;
  if (c.t0 > 0 && c.t0 >= c.t1) /* (a run that ends at 0 draws one column) */
    return -1;
  c.windowed = c.t0 > 0 || c.t1 < tl->end;
  int npresent = pick_rows(&c);
  if (npresent < 0) {
    free(c.rows);
    return -1;
  }
  int shown = c.shown;
  char buf[64];
  for (int w = 0; w < tl->nworkers; w++)
    if ((int)strlen(ts_timeline_worker_name(tl, w, buf, sizeof buf)) > c.label_w)
      c.label_w = (int)strlen(buf);
  for (int i = 0; i < shown; i++)
    if ((int)strlen(ts_timeline_actor_name(tl, c.rows[i], buf, sizeof buf)) > c.label_w)
      c.label_w = (int)strlen(buf);
  if (c.label_w > GANTT_MAX_LABEL) /* a long pool or class name is cut, the chart keeps its columns */
    c.label_w = GANTT_MAX_LABEL;
  c.label_w += 2;
  pick_unit(&c);
  int note_w = (int)strlen("busy 100%");
  for (int i = 0; i < shown; i++) {
    char note[64];
    end_note(&c, c.rows[i], note, sizeof note);
    int w = (int)strlen(note);
    note_w = w > note_w ? w : note_w;
  }
  pick_step(&c, o->width - c.label_w - 2 - (note_w + 1));
  c.cells = calloc((size_t)c.cols, sizeof *c.cells);
  if (!c.cells) {
    free(c.rows);
    return -1;
  }
  char from[32], to[32], end[32], step[32];
  fmt_time(&c, c.t0, from, sizeof from);
  fmt_time(&c, c.t1, to, sizeof to);
  fmt_time(&c, tl->end, end, sizeof end);
  fmt_time(&c, c.step, step, sizeof step);
  char head[256], span[192];
  snprintf(head, sizeof head, "%s%sn=%d, workers=%d:", o->title ? o->title : "", o->title ? ": " : "", tl->n,
           tl->nmain);
  if (c.windowed)
    snprintf(span, sizeof span, "%s to %s %s (the run: 0 to %s %s), one column = %s %s", from, to, c.uname, end,
             c.uname, step, c.uname);
  else
    snprintf(span, sizeof span, "0 to %s %s, one column = %s %s", end, c.uname, step, c.uname);
  if ((int)(strlen(head) + 1 + strlen(span)) <= o->width)
    fprintf(out, "%s %s\n", head, span);
  else
    fprintf(out, "%s\n  %s\n", head, span);
  axis(&c, out);
  for (int w = 0; w < tl->nworkers; w++)
    worker_row(&c, out, w);
  for (int i = 0; i < shown; i++)
    actor_rows(&c, out, c.rows[i]);
  not_drawn(&c, out, npresent);
  legend(&c, out);
  free(c.cells);
  free(c.rows);
  return 0;
}
