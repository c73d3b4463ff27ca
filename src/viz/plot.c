/* Plots: each compiled-in gnuplot script (the .gp files of plots/) is piped to one
 * gnuplot process, after a few variable definitions read off summary.csv
 * (worker counts, classes, which worker counts have recorded values). Each
 * plot is written under temporary names and renamed when gnuplot succeeded,
 * so a results folder never holds half a plot. TSSIM_PLOTS_DIR, when set,
 * names a folder whose scripts replace the compiled-in ones of the same name
 * (to edit them without rebuilding); a script it does not hold is the
 * compiled-in one. */
#include "viz/plot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
} summary;

/* Where an actor's time goes besides own CPU, queue, callback, I/O and lock
 * wait: columns summary.csv has only when the model uses the feature
 * (run/metrics.c), drawn by decomposition.gp when present. */
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

/* Split a CSV line (no quoting) in place; returns the number of fields. */
static int split(char *line, char **f, int max)
{
  int n = 0;
  line[strcspn(line, "\r\n")] = '\0';
  for (char *p = line; n < max;) {
    f[n++] = p;
    char *c = strchr(p, ',');
    if (!c)
      break;
    *c = '\0';
    p = c + 1;
  }
  return n;
}

static int read_summary(const char *path, summary *s)
{
  FILE *f = fopen(path, "r");
  if (!f)
    return -1;
  memset(s, 0, sizeof *s);
  char line[8192], *fld[128];
  int wcol = -1, ccol = -1, rcol[NKINDS], ncol[NKINDS];
  if (!fgets(line, sizeof line, f)) {
    fclose(f);
    return -1;
  }
  int nf = split(line, fld, 128);
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
    for (size_t k = 0; k < NKINDS; k++)
      if (kinds[k].recorded && strcmp(fld[i], kinds[k].recorded) == 0)
        rcol[k] = i;
    for (size_t k = 0; k < NKINDS; k++)
      if (kinds[k].needs && strcmp(fld[i], kinds[k].needs) == 0)
        ncol[k] = i;
  }
  while (wcol >= 0 && ccol >= 0 && fgets(line, sizeof line, f)) {
    int n = split(line, fld, 128);
    if (n <= wcol || n <= ccol)
      continue;
    add_word(s->workers, fld[wcol]);
    add_word(s->classes, fld[ccol]);
    for (size_t k = 0; k < NKINDS; k++)
      if (rcol[k] >= 0 && rcol[k] < n && fld[rcol[k]][0])
        add_word(s->rec[k], fld[wcol]);
    for (size_t k = 0; k < NKINDS; k++)
      if (ncol[k] >= 0 && ncol[k] < n && fld[ncol[k]][0])
        s->has[k] = 1;
  }
  fclose(f);
  return wcol >= 0 && ccol >= 0 && s->workers[0] ? 0 : -1;
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

/* Draw plots/<script>.gp into dir/<script>.png and .svg, after assigning
 * dir, png, svg and the NULL-terminated name, value pairs of vars. Returns
 * 1 when both files were written, else 0 (and says why). */
static int draw(const char *gnuplot, const char *dir, const char *script, const char *const *vars)
{
  char *owned;
  const char *text = script_text(script, &owned);
  if (!text) {
    const char *from = getenv("TSSIM_PLOTS_DIR");
    fprintf(stderr, "tssim: plots: cannot read %s/%s.gp (TSSIM_PLOTS_DIR): %s\n", from ? from : "", script,
            strerror(errno));
    return 0;
  }
  char png[1024], svg[1024], ftmp[2][1024], log[1024], cmd[2200];
  long pid = (long)getpid();
  snprintf(png, sizeof png, "%.900s/%s.png", dir, script);
  snprintf(svg, sizeof svg, "%.900s/%s.svg", dir, script);
  snprintf(ftmp[0], sizeof ftmp[0], "%.900s/%s.png.tmp.%ld", dir, script, pid);
  snprintf(ftmp[1], sizeof ftmp[1], "%.900s/%s.svg.tmp.%ld", dir, script, pid);
  snprintf(log, sizeof log, "%.900s/.%s.log.%ld", dir, script, pid);
  snprintf(cmd, sizeof cmd, "'%s' >'%s' 2>&1", gnuplot, log);
  if (strchr(dir, '\'') || strchr(gnuplot, '\'') || strlen(dir) > 900) {
    fprintf(stderr, "tssim: plots: skipped, the folder name is too long or contains a quote: %s\n", dir);
    free(owned);
    return 0;
  }
  FILE *g = popen(cmd, "w");
  int ok = 0;
  if (g) {
    assign(g, "dir", dir);
    assign(g, "png", ftmp[0]);
    assign(g, "svg", ftmp[1]);
    for (size_t i = 0; vars && vars[i] && vars[i + 1]; i += 2)
      assign(g, vars[i], vars[i + 1]);
    fputs(text, g);
    fputc('\n', g);
    ok = pclose(g) == 0 && nonempty(ftmp[0]) && nonempty(ftmp[1]);
  }
  if (ok)
    ok = rename(ftmp[0], png) == 0 && rename(ftmp[1], svg) == 0;
  if (!ok) {
    fprintf(stderr, "tssim: plots: gnuplot could not draw %s.png:\n", script);
    FILE *l = fopen(log, "r");
    char line[512];
    while (l && fgets(line, sizeof line, l))
      fprintf(stderr, "  %s", line);
    if (l)
      fclose(l);
    remove(ftmp[0]);
    remove(ftmp[1]);
  }
  remove(log);
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

int ts_plot_draw(const char *dir, const char *script, const char *const *vars, int quiet)
{
  char gnuplot[1024];
  if (gnuplot_or_say(gnuplot, sizeof gnuplot, quiet))
    return 0;
  int ok = draw(gnuplot, dir, script, vars);
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

int ts_plot_mark_stale(ts_atomic *a, const char *dir, ts_err *e)
{
  for (size_t k = 0; k < NKINDS; k++)
    if (ts_plot_mark_stale_one(a, dir, kinds[k].script, e))
      return -1;
  return 0;
}

int ts_plot_results(const char *dir, int quiet)
{
  char path[1100], gnuplot[1024];
  summary s;
  snprintf(path, sizeof path, "%s/summary.csv", dir);
  if (read_summary(path, &s) != 0) {
    fprintf(stderr, "tssim: plots: cannot read %s\n", path);
    return 0;
  }
  if (gnuplot_or_say(gnuplot, sizeof gnuplot, quiet))
    return 0;
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
  for (size_t k = 0; k < NKINDS; k++) {
    if (!s.has[k])
      continue;
    const char *vars[] = {"title",       title,    "workers", s.workers, "classes", s.classes,
                          "rec_workers", s.rec[k], "waits",   s.waits,   NULL};
    int ok = draw(gnuplot, dir, kinds[k].script, vars);
    if (ok && !quiet)
      printf("%s%s", drawn ? ", " : "wrote plots ", kinds[k].script);
    drawn += ok;
  }
  if (!quiet && drawn)
    printf(" (.png and .svg) in %s\n", dir);
  return drawn;
}
