/* Plots: each compiled-in gnuplot script (the .gp files of plots/) is piped to one
 * gnuplot process, after a few variable definitions read off summary.csv
 * (worker counts, classes, the combinations of the scenario's axes, which
 * lines have recorded values; docs/viz.md lists them). Each
 * plot is written under temporary names and renamed when gnuplot succeeded,
 * so a results folder never holds half a plot. TSSIM_PLOTS_DIR, when set,
 * names a folder whose scripts replace the compiled-in ones of the same name
 * (to edit them without rebuilding); a script it does not hold is the
 * compiled-in one. */
#include "viz/plot.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "viz/embedded.h"

/* A plot: plots/<script>.gp draws <script>.png and <script>.svg. */
typedef struct plot_kind {
  const char *script;
  const char *recorded;   /* the recorded_* column this plot shows, or NULL */
  const char *needs;      /* the column it plots, which some row must define, or NULL */
} plot_kind;

static const plot_kind kinds[] = {
  {"wave", "recorded_wave_ms", "wave_ms"},
  {"cpu", "recorded_per_group_cpu_ms", NULL},
  {"ratio", "recorded_wave_ratio", "wave_ratio"},
  {"decomposition", NULL, NULL},
  {"queue", NULL, NULL},
};

#define NKINDS (sizeof kinds / sizeof *kinds)
#define LIST 1024

/* What the scripts need to know about summary.csv. */
typedef struct summary {
  char workers[LIST];        /* distinct worker counts, space-separated */
  char classes[LIST];        /* distinct class names */
  char rec[NKINDS][LIST];    /* per plot: worker counts with recorded values */
  int has[NKINDS];           /* per plot: some row defines the column it needs */
  char waits[LIST];          /* the per-actor waits beyond the decomposition's five that summary.csv has
                              * (a model's calls, channels, hops, sleep, mutexes), in extra_waits order */
  char axes[LIST];           /* the scenario's axis keys: summary.csv's columns before n */
  char **series;             /* per axis combination, in the order of summary.csv's rows: its values,
                              * "key=label key=label" ("" without axes) */
  int nseries;
  int *first, *last;         /* per series: its first and last data row (from 0) */
  int scattered;             /* some series' rows are not consecutive */
  int *rec_pairs[NKINDS];    /* per plot: series index (from 1) and worker count of each line of recorded
                              * values, in pairs */
  int nrec[NKINDS];          /* pairs in rec_pairs */
} summary;

static void free_summary(summary *s)
{
  for (int i = 0; i < s->nseries; i++)
    free(s->series[i]);
  free(s->series);
  free(s->first);
  free(s->last);
  for (size_t k = 0; k < NKINDS; k++)
    free(s->rec_pairs[k]);
  memset(s, 0, sizeof *s);
}

/* Where an actor's time goes besides own CPU, queue, callback, I/O and lock
 * wait: columns summary.csv has only when the model uses the feature
 * (run/metrics.c), which name decomposition.gp's rest of the life (samples.csv,
 * whose means it stacks, has no column per extra wait). */
static const char *const extra_waits[] = {"call_wait_ms", "chan_wait_ms", "hop_ms", "sleep_ms",
                                          "actor_mutex_wait_ms", NULL};

/* Append word to a space-separated list unless it is there already. */
static void add_word(char *list, const char *word)
{
  size_t n = strlen(word);
  for (const char *p = list; *p;) {
    const char *e = strchr(p, ' ');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len == n && strncmp(p, word, n) == 0)
      return;
    p += len + (e != NULL);
  }
  if (strlen(list) + n + 2 > LIST)
    return;
  if (*list)
    strcat(list, " ");
  strcat(list, word);
}

/* Split a CSV line (no quoting) in place into *f (grown as needed, *cap
 * entries); returns the number of fields, or -1 when memory runs out. */
static int split(char *line, char ***f, int *cap)
{
  int n = 0;
  line[strcspn(line, "\r\n")] = '\0';
  for (char *p = line;;) {
    if (n == *cap) {
      char **g = realloc(*f, (size_t)(*cap ? 2 * *cap : 64) * sizeof *g);
      if (!g)
        return -1;
      *f = g;
      *cap = *cap ? 2 * *cap : 64;
    }
    (*f)[n++] = p;
    char *c = strchr(p, ',');
    if (!c)
      return n;
    *c = '\0';
    p = c + 1;
  }
}

/* The index of series label in s, added when new; -1 when memory runs out. */
static int series_of(summary *s, const char *label, int row)
{
  for (int i = s->nseries; i-- > 0;)
    if (strcmp(s->series[i], label) == 0) {
      s->scattered |= s->last[i] != row - 1;
      s->last[i] = row;
      return i;
    }
  int n = s->nseries + 1;
  char **l = realloc(s->series, (size_t)n * sizeof *l);
  if (l)
    s->series = l;
  int *f = l ? realloc(s->first, (size_t)n * sizeof *f) : NULL;
  if (f)
    s->first = f;
  int *e = f ? realloc(s->last, (size_t)n * sizeof *e) : NULL;
  if (e)
    s->last = e;
  if (!e || !(s->series[n - 1] = strdup(label)))
    return -1;
  s->first[n - 1] = s->last[n - 1] = row;
  s->nseries = n;
  return n - 1;
}

/* Add the pair (series index from 1, workers) to plot k's recorded lines unless there. */
static int add_rec(summary *s, size_t k, int series, int workers)
{
  for (int i = 0; i < s->nrec[k]; i++)
    if (s->rec_pairs[k][2 * i] == series && s->rec_pairs[k][2 * i + 1] == workers)
      return 0;
  int *p = realloc(s->rec_pairs[k], (size_t)(s->nrec[k] + 1) * 2 * sizeof *p);
  if (!p)
    return -1;
  s->rec_pairs[k] = p;
  p[2 * s->nrec[k]] = series;
  p[2 * s->nrec[k] + 1] = workers;
  s->nrec[k]++;
  return 0;
}

/* Read summary.csv at path into s (free it with free_summary, also after
 * a failure). Returns 0, or -1 when it cannot be read, lacks the workers or
 * class column or has no rows. */
static int read_summary(const char *path, summary *s)
{
  memset(s, 0, sizeof *s);
  FILE *f = fopen(path, "r");
  if (!f)
    return -1;
  char *line = NULL, **fld = NULL, *label = NULL;
  size_t len = 0, lcap = 0;
  int cap = 0, wcol = -1, ccol = -1, ncol_n = -1, rcol[NKINDS], ncol[NKINDS], rows = 0, failed = 0;
  int nf = getline(&line, &len, f) > 0 ? split(line, &fld, &cap) : -1;
  for (size_t k = 0; k < NKINDS; k++) {
    rcol[k] = ncol[k] = -1;
    s->has[k] = !kinds[k].needs;
  }
  for (const char *const *w = extra_waits; *w; w++)
    for (int i = 0; i < nf; i++)
      if (strcmp(fld[i], *w) == 0)
        add_word(s->waits, *w);
  for (int i = 0; i < nf; i++) {
    wcol = strcmp(fld[i], "workers") == 0 ? i : wcol;
    ccol = strcmp(fld[i], "class") == 0 ? i : ccol;
    ncol_n = ncol_n < 0 && strcmp(fld[i], "n") == 0 ? i : ncol_n;
    for (size_t k = 0; k < NKINDS; k++)
      if (kinds[k].recorded && strcmp(fld[i], kinds[k].recorded) == 0)
        rcol[k] = i;
    for (size_t k = 0; k < NKINDS; k++)
      if (kinds[k].needs && strcmp(fld[i], kinds[k].needs) == 0)
        ncol[k] = i;
  }
  for (int i = 0; i < ncol_n; i++) /* (report.c writes the axis keys first) */
    add_word(s->axes, fld[i]);
  /* the axis key names of the columns before n, kept while fld is reused */
  char *keys = strdup(s->axes);
  failed = !keys;
  while (!failed && wcol >= 0 && ccol >= 0 && getline(&line, &len, f) > 0) {
    int n = split(line, &fld, &cap);
    if (n < 0) {
      failed = 1;
      break;
    }
    if (n <= wcol || n <= ccol || n <= ncol_n)
      continue;
    /* the row's series: "key=label ..." over the axis columns, sized from
     * the keys (keys holds each once, a space apart) and the labels */
    size_t need = strlen(keys) + 1;
    for (int i = 0; i < ncol_n; i++)
      need += strlen(fld[i]) + 2;
    if (need > lcap) {
      char *l = realloc(label, need);
      if (!l) {
        failed = 1;
        break;
      }
      label = l;
      lcap = need;
    }
    label[0] = '\0';
    const char *key = keys;
    for (int i = 0; i < ncol_n; i++) {
      size_t kl = strcspn(key, " ");
      sprintf(label + strlen(label), "%s%.*s=%s", i ? " " : "", (int)kl, key, fld[i]);
      key += kl + (key[kl] == ' ');
    }
    int ser = series_of(s, label, rows++);
    if (ser < 0) {
      failed = 1;
      break;
    }
    add_word(s->workers, fld[wcol]);
    add_word(s->classes, fld[ccol]);
    for (size_t k = 0; k < NKINDS; k++)
      if (rcol[k] >= 0 && rcol[k] < n && fld[rcol[k]][0]) {
        add_word(s->rec[k], fld[wcol]);
        failed |= add_rec(s, k, ser + 1, atoi(fld[wcol])) != 0;
      }
    for (size_t k = 0; k < NKINDS; k++)
      if (ncol[k] >= 0 && ncol[k] < n && fld[ncol[k]][0])
        s->has[k] = 1;
  }
  free(keys);
  free(label);
  free(fld);
  free(line);
  fclose(f);
  return !failed && wcol >= 0 && ccol >= 0 && s->workers[0] ? 0 : -1;
}

/* The full path of gnuplot found on PATH, into buf; 0 or -1. */
static int find_gnuplot(char *buf, size_t len)
{
  const char *path = getenv("PATH");
  while (path && *path) {
    const char *e = strchr(path, ':');
    size_t n = e ? (size_t)(e - path) : strlen(path);
    if (n > 0 && n + 9 < len) {
      snprintf(buf, len, "%.*s/gnuplot", (int)n, path);
      if (access(buf, X_OK) == 0)
        return 0;
    }
    path = e ? e + 1 : NULL;
  }
  return -1;
}

/* A gnuplot single-quoted string assignment: name = 'value' ('' for '). */
static void assign(FILE *g, const char *name, const char *value)
{
  fprintf(g, "%s = '", name);
  for (const char *p = value; *p; p++) {
    if (*p == '\'')
      fputc('\'', g);
    fputc(*p, g);
  }
  fputs("'\n", g);
}

/* The script text: from TSSIM_PLOTS_DIR/<name>.gp if that variable is set
 * and the folder holds that script (caller frees *owned), else compiled in:
 * a folder with only the edited scripts draws the other plots with the
 * built-in ones. NULL (errno set) when the folder is not one, or holds the
 * script but it cannot be read. */
static const char *script_text(const char *name, char **owned)
{
  const char *dir = getenv("TSSIM_PLOTS_DIR");
  *owned = NULL;
  if (dir && *dir) {
    char path[1024];
    struct stat st;
    if (stat(dir, &st) != 0)
      return NULL;
    if (!S_ISDIR(st.st_mode)) {
      errno = ENOTDIR;
      return NULL;
    }
    if (snprintf(path, sizeof path, "%s/%s.gp", dir, name) >= (int)sizeof path) {
      errno = ENAMETOOLONG;
      return NULL;
    }
    FILE *f = fopen(path, "rb");
    if (!f && errno == ENOENT && lstat(path, &st) != 0) /* (a dangling link is not an absent script) */
      return ts_embedded_find(ts_plot_scripts, name);
    if (!f)
      return NULL; /* (errno: fopen's; lstat succeeding leaves it) */
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
      fclose(f);
      errno = EISDIR;
      return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    while (buf && (n += fread(buf + n, 1, cap - n, f)) == cap) {
      char *nb = realloc(buf, 2 * cap + 1);
      if (!nb) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = nb;
      cap *= 2;
    }
    int failed = ferror(f), err = errno;
    fclose(f);
    if (buf && failed) {
      free(buf);
      errno = err;
      return NULL;
    }
    if (buf)
      buf[n] = '\0';
    *owned = buf;
    return buf;
  }
  return ts_embedded_find(ts_plot_scripts, name);
}

/* The scenario's name from dir/summary.json, else the folder's name. */
static void scenario_name(const char *dir, char *buf, size_t len)
{
  char path[1100];
  const char *slash = strrchr(dir, '/');
  snprintf(buf, len, "%s", slash && slash[1] ? slash + 1 : dir);
  snprintf(path, sizeof path, "%s/summary.json", dir);
  FILE *f = fopen(path, "rb");
  if (!f)
    return;
  char head[4096]; /* "scenario" comes near the top */
  size_t n = fread(head, 1, sizeof head - 1, f);
  fclose(f);
  head[n] = '\0';
  const char *k = strstr(head, "\"scenario\":");
  const char *q = k ? strchr(k + 11, '"') : NULL;
  const char *e = q ? strchr(q + 1, '"') : NULL;
  if (e && e - q - 1 < (long)len && !memchr(q + 1, '\\', (size_t)(e - q - 1)))
    snprintf(buf, len, "%.*s", (int)(e - q - 1), q + 1);
}

static int nonempty(const char *path)
{
  struct stat st;
  return stat(path, &st) == 0 && st.st_size > 0;
}

void ts_plot_watch_stop(ts_plot_watch *w)
{
  w->stop = 1;
  pid_t pid = (pid_t)w->pid;
  if (pid > 0)
    kill(pid, SIGKILL);
}

void ts_plot_watch_abandon(ts_plot_watch *w)
{
  ts_plot_watch_stop(w);
  pid_t pid = (pid_t)w->pid;
  if (pid > 0)
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
      ;
  for (int i = 0; i < w->ntmp; i++)
    unlink(w->tmp[i]);
}

/* Start gnuplot (its full path) reading the pipe whose write end goes in
 * *in, writing its stdout and stderr into tmp[2] (the log); tmp[0] and
 * tmp[1] are the plot's temporaries. w (or NULL) gets the temporaries
 * before any exists and the pid before gnuplot runs (SIGINT and SIGTERM
 * blocked meanwhile), so a handler stops every gnuplot it can see. Returns
 * the pid, 0 when w was stopped already (nothing started), or -1. */
static pid_t start_gnuplot(const char *gnuplot, char tmp[3][1024], ts_plot_watch *w, int *in)
{
  if (w) {
    for (int i = 0; i < 3; i++)
      memcpy(w->tmp[i], tmp[i], sizeof w->tmp[i]);
    atomic_signal_fence(memory_order_seq_cst); /* the names are whole before a handler can see them */
    w->ntmp = 3;
  }
  int fd[2], out = open(tmp[2], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out < 0)
    return -1;
  if (pipe(fd) != 0) {
    close(out);
    return -1;
  }
  fcntl(fd[1], F_SETFD, FD_CLOEXEC); /* (the child's copy closes at exec: gnuplot sees the end of its input) */
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &block, &old);
  pid_t pid = 0;
  if (!w || !w->stop) {
    pid = fork();
    if (pid == 0) { /* the child: tssim's handlers are not its own, before exec as after */
      signal(SIGINT, SIG_DFL);
      signal(SIGTERM, SIG_DFL);
      pthread_sigmask(SIG_SETMASK, &old, NULL);
      if (dup2(fd[0], 0) >= 0 && dup2(out, 1) >= 0 && dup2(out, 2) >= 0)
        execl(gnuplot, "gnuplot", (char *)NULL);
      _exit(127);
    }
    if (pid > 0 && w)
      w->pid = pid;
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  close(fd[0]);
  close(out);
  if (pid > 0)
    *in = fd[1];
  else
    close(fd[1]);
  return pid;
}

/* Draw plots/<script>.gp into dir/<script>.png and .svg, after assigning
 * dir, png, svg and the NULL-terminated name, value pairs of vars, then
 * preamble (gnuplot text, or NULL); w (or NULL) watches it. Returns 1 when
 * both files were written, else 0 (and says why, unless a stop of w ended
 * it). */
static int draw(const char *gnuplot, const char *dir, const char *script, const char *const *vars,
                const char *preamble, ts_plot_watch *w)
{
  char *owned;
  const char *text = script_text(script, &owned);
  if (!text) {
    const char *from = getenv("TSSIM_PLOTS_DIR");
    fprintf(stderr, "tssim: plots: cannot read %s/%s.gp (TSSIM_PLOTS_DIR): %s\n", from ? from : "", script,
            strerror(errno));
    return 0;
  }
  char png[1024], svg[1024], tmp[3][1024]; /* tmp: the .png's and .svg's temporaries, gnuplot's log */
  long pid = (long)getpid();
  snprintf(png, sizeof png, "%.900s/%s.png", dir, script);
  snprintf(svg, sizeof svg, "%.900s/%s.svg", dir, script);
  snprintf(tmp[0], sizeof tmp[0], "%.900s/%s.png.tmp.%ld", dir, script, pid);
  snprintf(tmp[1], sizeof tmp[1], "%.900s/%s.svg.tmp.%ld", dir, script, pid);
  snprintf(tmp[2], sizeof tmp[2], "%.900s/.%s.log.%ld", dir, script, pid);
  if (strchr(dir, '\'') || strchr(gnuplot, '\'') || strlen(dir) > 900) {
    fprintf(stderr, "tssim: plots: skipped, the folder name is too long or contains a quote: %s\n", dir);
    free(owned);
    return 0;
  }
  int in = -1, ok = 0;
  pid_t child = start_gnuplot(gnuplot, tmp, w, &in);
  if (child > 0) {
    /* a gnuplot killed by a stop closes the pipe: its write fails (EPIPE), not tssim */
    struct sigaction ign, pipe_was;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ign, &pipe_was);
    FILE *g = fdopen(in, "w");
    if (g) {
      assign(g, "dir", dir);
      assign(g, "png", tmp[0]);
      assign(g, "svg", tmp[1]);
      for (size_t i = 0; vars && vars[i] && vars[i + 1]; i += 2)
        assign(g, vars[i], vars[i + 1]);
      if (preamble)
        fputs(preamble, g);
      fputs(text, g);
      fputc('\n', g);
      fclose(g);
    } else
      close(in);
    sigaction(SIGPIPE, &pipe_was, NULL);
    /* wait for its end without reaping it, so that its pid is not free (and
     * cannot be another process's) while a handler may still kill it; then
     * clear the pid and reap, the handled signals blocked */
    siginfo_t si;
    while (waitid(P_PID, (id_t)child, &si, WEXITED | WNOWAIT) < 0 && errno == EINTR)
      ;
    sigset_t block, was;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &block, &was);
    if (w)
      w->pid = 0;
    int status = 0;
    pid_t r;
    while ((r = waitpid(child, &status, 0)) < 0 && errno == EINTR)
      ;
    pthread_sigmask(SIG_SETMASK, &was, NULL);
    ok = r == child && WIFEXITED(status) && WEXITSTATUS(status) == 0 && nonempty(tmp[0]) && nonempty(tmp[1]);
  }
  if (ok)
    ok = rename(tmp[0], png) == 0 && rename(tmp[1], svg) == 0;
  if (!ok && child != 0 && !(w && w->stop)) {
    fprintf(stderr, "tssim: plots: gnuplot could not draw %s.png:\n", script);
    FILE *l = fopen(tmp[2], "r");
    char line[512];
    while (l && fgets(line, sizeof line, l))
      fprintf(stderr, "  %s", line);
    if (l)
      fclose(l);
  }
  if (!ok) {
    remove(tmp[0]);
    remove(tmp[1]);
  }
  remove(tmp[2]);
  if (w)
    w->ntmp = 0;
  free(owned);
  return ok;
}

/* The full path of gnuplot into buf: 0, or -1 after saying how to get it
 * (unless quiet). */
static int gnuplot_or_say(char *buf, size_t len, int quiet)
{
  if (find_gnuplot(buf, len) == 0)
    return 0;
  if (!quiet)
    fprintf(stderr,
            "tssim: plots skipped: gnuplot is not installed. To get them, install it\n"
            "  (Debian/Ubuntu: apt-get install gnuplot-nox; Fedora: dnf install gnuplot;\n"
            "  macOS: brew install gnuplot) and run this command again.\n");
  return -1;
}

int ts_plot_draw(const char *dir, const char *script, const char *const *vars, int quiet, ts_plot_watch *w)
{
  char gnuplot[1024];
  if (gnuplot_or_say(gnuplot, sizeof gnuplot, quiet))
    return 0;
  int ok = draw(gnuplot, dir, script, vars, NULL, w);
  if (ok && !quiet)
    printf("wrote plot %s (.png and .svg) in %s\n", script, dir);
  return ok;
}

int ts_plot_mark_stale_one(ts_atomic *a, const char *dir, const char *script, ts_err *e)
{
  static const char *const ext[] = {".png", ".svg"};
  for (size_t x = 0; x < 2; x++) {
    char name[300];
    snprintf(name, sizeof name, "%.250s%s", script, ext[x]);
    if (ts_atomic_remove(a, dir, name, e))
      return -1;
  }
  return 0;
}

int ts_plot_is_file(const char *name, const char *script)
{
  for (size_t k = 0; !script && k < NKINDS; k++)
    if (ts_plot_is_file(name, kinds[k].script))
      return 1;
  size_t len = script ? strlen(script) : 0;
  return script && strncmp(name, script, len) == 0 && (strcmp(name + len, ".png") == 0 || strcmp(name + len, ".svg") == 0);
}

int ts_plot_mark_stale(ts_atomic *a, const char *dir, ts_err *e)
{
  for (size_t k = 0; k < NKINDS; k++)
    if (ts_plot_mark_stale_one(a, dir, kinds[k].script, e))
      return -1;
  return 0;
}

/* The variables plot kind k's script gets from summary s (beside dir, png
 * and svg), as gnuplot text onto out: the strings title, workers, classes,
 * rec_workers, waits, axes, series_1 .. series_<nseries>, rec_lines and
 * series_rows, and the number nseries (docs/viz.md). */
static void results_vars(FILE *out, const summary *s, size_t k, const char *title)
{
  assign(out, "title", title);
  assign(out, "workers", s->workers);
  assign(out, "classes", s->classes);
  assign(out, "rec_workers", s->rec[k]);
  assign(out, "waits", s->waits);
  assign(out, "axes", s->axes);
  fprintf(out, "nseries = %d\n", s->nseries);
  for (int i = 0; i < s->nseries; i++) {
    char name[32];
    snprintf(name, sizeof name, "series_%d", i + 1);
    assign(out, name, s->series[i]);
  }
  fputs("rec_lines = '", out);
  for (int i = 0; i < s->nrec[k]; i++)
    fprintf(out, "%s%d %d", i ? " " : "", s->rec_pairs[k][2 * i], s->rec_pairs[k][2 * i + 1]);
  fputs("'\nseries_rows = '", out);
  for (int i = 0; !s->scattered && i < s->nseries; i++)
    fprintf(out, "%s%d %d", i ? " " : "", s->first[i], s->last[i]);
  fputs("'\n", out);
}

int ts_plot_results_vars(const char *dir, const char *script, FILE *out)
{
  char path[1100], title[256];
  summary s;
  snprintf(path, sizeof path, "%s/summary.csv", dir);
  int rc = read_summary(path, &s);
  size_t k = 0;
  while (k < NKINDS && strcmp(kinds[k].script, script) != 0)
    k++;
  if (rc == 0 && k < NKINDS) {
    scenario_name(dir, title, sizeof title);
    results_vars(out, &s, k, title);
  }
  free_summary(&s);
  return rc == 0 && k < NKINDS ? 0 : -1;
}

/* Whether TSSIM_PLOTS_DIR, when set, is a folder: else one line says so
 * for every plot (not one line per plot) and returns 0. */
static int scripts_dir_or_say(void)
{
  const char *dir = getenv("TSSIM_PLOTS_DIR");
  struct stat st;
  if (!dir || !*dir)
    return 1;
  int found = stat(dir, &st) == 0;
  if (found && S_ISDIR(st.st_mode))
    return 1;
  fprintf(stderr, "tssim: plots skipped: TSSIM_PLOTS_DIR=%s: %s, expected a folder of gnuplot scripts\n", dir,
          found ? "not a folder" : strerror(errno));
  return 0;
}

int ts_plot_results(const char *dir, int quiet, ts_plot_watch *w)
{
  char path[1100], gnuplot[1024];
  summary s;
  snprintf(path, sizeof path, "%s/summary.csv", dir);
  if (read_summary(path, &s) != 0) {
    free_summary(&s);
    fprintf(stderr, "tssim: plots: cannot read %s\n", path);
    return 0;
  }
  if (gnuplot_or_say(gnuplot, sizeof gnuplot, quiet) || !scripts_dir_or_say()) {
    free_summary(&s);
    return 0;
  }
  char title[256];
  scenario_name(dir, title, sizeof title);
  int drawn = 0;
  char skipped[128] = "";
  for (size_t k = 0; k < NKINDS; k++)
    if (!s.has[k])
      snprintf(skipped + strlen(skipped), sizeof skipped - strlen(skipped), "%s%s", *skipped ? ", " : "",
               kinds[k].script);
  if (*skipped && !quiet)
    fprintf(stderr, "tssim: plots %s skipped: no actor finished at any point (wave_ms is undefined: measure "
            "open-ended models with spans)\n", skipped);
  if (w)
    w->undrawn[0] = '\0';
  for (size_t k = 0; k < NKINDS; k++) {
    if (!s.has[k])
      continue;
    char *pre = NULL;
    size_t len = 0;
    FILE *m = w && w->stop ? NULL : open_memstream(&pre, &len);
    if (m)
      results_vars(m, &s, k, title);
    int ok = m && fclose(m) == 0 && draw(gnuplot, dir, kinds[k].script, NULL, pre, w);
    free(pre);
    if (!ok && w && w->stop)
      snprintf(w->undrawn + strlen(w->undrawn), sizeof w->undrawn - strlen(w->undrawn), "%s%s",
               *w->undrawn ? ", " : "", kinds[k].script);
    if (ok && !quiet)
      printf("%s%s", drawn ? ", " : "wrote plots ", kinds[k].script);
    drawn += ok;
  }
  if (!quiet && drawn)
    printf(" (.png and .svg) in %s\n", dir);
  free_summary(&s);
  return drawn;
}
