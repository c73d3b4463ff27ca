/* Shards: `tssim run S --shard K/M` writes a partial folder, `tssim merge
 * DIR...` makes the files of the unsharded run from all M of them.
 *
 * A partial folder holds samples.csv (the header, then the rows of the
 * shard's points in the sweep's order) and partial.json: the run's command
 * line and working folder (the merge loads the scenario the same way, so
 * the columns, the baseline and the resolved model are the run's), the
 * shard, the events, and every row of every point of the shard with its
 * index in the sweep, its values, means, half-widths and per-replication
 * values (numbers exact: written with 17 significant digits, which read back
 * as the same double; NAN as null, infinities as "inf" / "-inf") and the
 * byte range of its samples, what the shard's sweep noted (ts_sweep_notes:
 * the merge says the notes of the unsharded run), and the FNV-1a hash of all the rows (the merge
 * refuses a samples.csv whose rows are not the bytes the shard wrote). wave_ratio and the columns comparing points
 * need other points, so the merge computes them once all are in; the rest is
 * copied. The merged files are then written by the same code as tssim run's. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli/cli.h"
#include "io/atomic.h"
#include "io/jsonfile.h"
#include "io/report.h"
#include "run/sweep.h"
#include "viz/plot.h"

/* 5: a point's ci_missed, ci_rel and ci_rel_col with a CI target (4 had none: a merged header claimed the
 *    target for rows that stopped at --ci-max without it), and notes.overloaded;
 * 4: notes.identical and notes.replicated (3 had none: merge counted only the newer shards' points);
 * 3: notes, what the shard's sweep noted (2 had none: merge said no backlog nor missed window);
 * 2: samples_fnv1a, the hash of samples.csv's rows (1 had none: merge checked their length only) */
#define PARTIAL_FORMAT 5

uint64_t ts_cli_fnv1a(uint64_t h, const void *p, size_t n)
{
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++)
    h = (h ^ b[i]) * 0x100000001b3ULL;
  return h;
}

/* ---- writing a partial folder ---- */

/* cJSON writes 15 digits when they read back within an epsilon: not exact.
 * %.17g always reads back as the same double. */
static cJSON *number(double v)
{
  if (isnan(v))
    return cJSON_CreateNull();
  if (isinf(v))
    return cJSON_CreateString(v > 0 ? "inf" : "-inf");
  char text[40];
  snprintf(text, sizeof text, "%.17g", v);
  return cJSON_CreateRaw(text);
}

static cJSON *numbers(const double *v, size_t n)
{
  cJSON *a = cJSON_CreateArray();
  for (size_t i = 0; a && i < n; i++)
    cJSON_AddItemToArray(a, number(v[i]));
  return a;
}

static const char *const note_names[] = {"window_missed", "backlogged", "identical", "overloaded"};

/* The notes of a sweep as partial.json's "notes": {"window_missed":
 * {"count", "first", "first_point"}, "backlogged": {...}, "identical":
 * {...}, "overloaded": {...}, "replicated": N}. */
static cJSON *notes_json(const ts_sweep_notes *n)
{
  const ts_sweep_note *v[] = {&n->window_missed, &n->backlogged, &n->identical, &n->overloaded};
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "replicated", (double)n->replicated);
  for (int i = 0; o && i < (int)(sizeof v / sizeof *v); i++) {
    cJSON *x = cJSON_AddObjectToObject(o, note_names[i]);
    cJSON_AddNumberToObject(x, "count", (double)v[i]->count);
    cJSON_AddStringToObject(x, "first", v[i]->count ? v[i]->first : "");
    cJSON_AddNumberToObject(x, "first_point", (double)(v[i]->count ? v[i]->first_point : 0));
  }
  return o;
}

/* What must be equal for shards to belong to one run: every option that
 * changes the sweep (not the output folder, the shard, quiet, plots, jobs). */
static cJSON *run_key(const ts_run_opts *o)
{
  cJSON *k = cJSON_CreateObject();
  cJSON_AddStringToObject(k, "scenario", o->scenario);
  cJSON *sets = cJSON_AddArrayToObject(k, "set");
  for (int i = 0; i < o->nsets; i++)
    cJSON_AddItemToArray(sets, cJSON_CreateString(o->sets[i]));
  cJSON *axes = o->naxes ? cJSON_AddArrayToObject(k, "axis") : NULL;
  for (int i = 0; i < o->naxes; i++)
    cJSON_AddItemToArray(axes, cJSON_CreateString(o->axes[i]));
  const char *const names[] = {"seed", "n", "workers", "replications", "ci_target", "ci_max"};
  const char *const vals[] = {o->seed_arg, o->n_arg, o->w_arg, o->r_arg, o->t_arg, o->x_arg};
  for (int i = 0; i < 6; i++)
    if (vals[i])
      cJSON_AddStringToObject(k, names[i], vals[i]);
  cJSON_AddBoolToObject(k, "samples", o->samples);
  return k;
}

int ts_cli_partial_commit(ts_atomic *a, const char *outdir, int argc, char **argv, const ts_run_opts *o,
                          const ts_sweep *s, uint64_t header_bytes, const uint64_t *point_end,
                          uint64_t samples_hash, int quiet)
{
  ts_err e;
  char cwd[4096];
  if (!getcwd(cwd, sizeof cwd)) {
    fprintf(stderr, "tssim: cannot read the working folder: %s\n", strerror(errno));
    ts_atomic_abort(a);
    return TS_EXIT_IO;
  }
  cJSON *root = cJSON_CreateObject();
  cJSON_AddNumberToObject(root, "tssim_partial", PARTIAL_FORMAT);
  cJSON_AddStringToObject(root, "tssim_version", TSSIM_VERSION);
  cJSON_AddNumberToObject(root, "shard", o->shard);
  cJSON_AddNumberToObject(root, "shards", o->shards);
  cJSON_AddStringToObject(root, "cwd", cwd);
  cJSON *args = cJSON_AddArrayToObject(root, "argv");
  for (int i = 0; i < argc; i++)
    cJSON_AddItemToArray(args, cJSON_CreateString(argv[i]));
  cJSON_AddItemToObject(root, "run", run_key(o));
  cJSON_AddNumberToObject(root, "points_total", (double)s->points_total);
  char events[32];
  snprintf(events, sizeof events, "%llu", (unsigned long long)s->events);
  cJSON_AddRawToObject(root, "events", events);
  cJSON_AddNumberToObject(root, "max_replications", s->max_replications);
  cJSON_AddNumberToObject(root, "ncols", (double)s->ncols);
  cJSON_AddItemToObject(root, "notes", notes_json(&s->notes));
  if (o->samples) {
    char hex[24];
    snprintf(hex, sizeof hex, "%016llx", (unsigned long long)samples_hash);
    cJSON_AddStringToObject(root, "samples_fnv1a", hex);
  }
  cJSON *pts = cJSON_AddArrayToObject(root, "points");
  uint64_t start = header_bytes;
  for (size_t i = 0; i < s->npoints; i++) {
    const ts_point *p = &s->points[i];
    cJSON *x = cJSON_CreateObject();
    cJSON_AddNumberToObject(x, "index", (double)p->index);
    cJSON_AddNumberToObject(x, "combo", p->combo);
    cJSON_AddNumberToObject(x, "n", p->n);
    cJSON_AddNumberToObject(x, "workers", p->workers);
    cJSON_AddNumberToObject(x, "klass", p->klass);
    cJSON_AddStringToObject(x, "class", p->class_name);
    cJSON_AddNumberToObject(x, "replications", p->replications);
    cJSON_AddNumberToObject(x, "samples", (double)p->samples);
    cJSON_AddNumberToObject(x, "outside", p->outside);
    if (p->ci_rel_col >= 0) { /* with a CI target: whether the row missed it, and its widest relative half-width */
      cJSON_AddBoolToObject(x, "ci_missed", p->ci_missed);
      cJSON_AddNumberToObject(x, "ci_rel_col", p->ci_rel_col);
      cJSON_AddItemToObject(x, "ci_rel", isfinite(p->ci_rel) ? cJSON_CreateNumber(p->ci_rel) : cJSON_CreateNull());
    }
    if (i + 1 == s->npoints || s->points[i + 1].index != p->index) { /* the point's last row carries its samples */
      cJSON *r = cJSON_AddArrayToObject(x, "samples_bytes");
      cJSON_AddItemToArray(r, cJSON_CreateNumber((double)start));
      cJSON_AddItemToArray(r, cJSON_CreateNumber((double)point_end[p->index]));
      start = point_end[p->index] > start ? point_end[p->index] : start;
    }
    cJSON_AddItemToObject(x, "value", numbers(p->value, s->ncols));
    cJSON_AddItemToObject(x, "mean", numbers(p->mean, s->ncols));
    cJSON_AddItemToObject(x, "ci95", numbers(p->ci95, s->ncols));
    cJSON_AddItemToObject(x, "rep", numbers(p->rep, s->ncols * (size_t)p->replications));
    cJSON_AddItemToArray(pts, x);
  }
  char *text = cJSON_Print(root);
  cJSON_Delete(root);
  FILE *f = text && ts_mkdirs(outdir, &e) == 0 ? ts_atomic_open(a, outdir, "partial.json", &e) : NULL;
  if (!f || (!o->samples && ts_atomic_remove(a, outdir, "samples.csv", &e)) ||
      ts_atomic_remove(a, outdir, "summary.csv", &e) || ts_atomic_remove(a, outdir, "summary.json", &e) ||
      ts_cli_outdir_replace(a, outdir, &e)) {
    if (!text)
      ts_err_set(&e, outdir, NULL, "out of memory writing partial.json");
    cJSON_free(text);
    ts_atomic_abort(a);
    fprintf(stderr, "tssim: %s\n", e.msg);
    return TS_EXIT_IO;
  }
  fputs(text, f);
  fputc('\n', f);
  cJSON_free(text);
  if (ts_cli_interrupted()) {
    ts_atomic_abort(a);
    fprintf(stderr, "tssim: interrupted: %s%s left as it was\n", outdir, outdir[strlen(outdir) - 1] == '/' ? "" : "/");
    return ts_cli_interrupt_status();
  }
  if (ts_atomic_commit(a, &e)) {
    fprintf(stderr, "tssim: %s\n", e.msg);
    return TS_EXIT_IO;
  }
  if (!quiet)
    printf("wrote %s/partial.json%s (tssim merge combines the %d shards)\n", outdir, o->samples ? ", samples.csv" : "",
           o->shards);
  return ts_cli_interrupt_written(outdir, NULL, NULL); /* a signal that came as it was written: said, as tssim run */
}

/* ---- merging ---- */

static void usage(FILE *f)
{
  fputs("usage: tssim merge DIR... [options]\n"
        "\n"
        "Combine the partial folders of `tssim run SCENARIO --shard K/M` (K = 1..M, any order)\n"
        "into the files the unsharded run writes: summary.csv, samples.csv and summary.json, the\n"
        "same bytes, and the plots. The scenario is loaded again as the shards' run loaded it\n"
        "(same command line, from the folder it ran in when that exists, else from here).\n"
        "\n"
        "options:\n"
        "  -o, --output DIR        results folder (default: results/<scenario name>): new,\n"
        "                          empty, or an earlier run's, as for tssim run\n"
        "      --no-plots          do not run gnuplot\n"
        "  -q, --quiet             no table\n"
        "  -h, --help              this help\n"
        "\n" TS_CLI_EXIT_HELP ".\n",
        f);
}

typedef struct shard {
  const char *dir;
  cJSON *root;
  int k;
} shard;

/* A row of a point, as the merge orders them: by the point's index, then
 * in the order its shard wrote them. */
typedef struct prow {
  const cJSON *x;
  int shard;
  size_t index, order;
} prow;

static int cmp_prow(const void *a, const void *b)
{
  const prow *x = a, *y = b;
  if (x->index != y->index)
    return x->index < y->index ? -1 : 1;
  return (x->order > y->order) - (x->order < y->order);
}

static int merge_fail(const char *dir, const char *what)
{
  fprintf(stderr, "tssim: %s: %s\n", dir, what);
  return TS_EXIT_USAGE;
}

/* The results folder is none of the shard folders (the same folder by
 * device and inode, whatever the path): the merged results would replace
 * that shard's partial.json and samples.csv. Returns 0, or 2 after saying so. */
static int outdir_not_a_shard(const char *outdir, const shard *sh, int nsh)
{
  struct stat out, in;
  if (stat(outdir, &out) != 0)
    return 0; /* a new folder */
  for (int i = 0; i < nsh; i++)
    if (stat(sh[i].dir, &in) == 0 && in.st_dev == out.st_dev && in.st_ino == out.st_ino)
      return ts_cli_usage_error("merge: -o %s is the shard folder %s: the merged results would replace its "
                                "partial.json; write them to another folder", outdir, sh[i].dir);
  return 0;
}

/* n doubles of array a into v. Returns 0, or -1 when a is not such an array. */
static int read_numbers(const cJSON *a, double *v, size_t n)
{
  size_t i = 0;
  if (!cJSON_IsArray(a))
    return -1;
  for (const cJSON *it = a->child; it; it = it->next, i++) {
    if (i >= n)
      return -1;
    if (cJSON_IsNull(it))
      v[i] = NAN;
    else if (cJSON_IsNumber(it))
      v[i] = it->valuedouble;
    else if (cJSON_IsString(it) && strcmp(it->valuestring, "inf") == 0)
      v[i] = INFINITY;
    else if (cJSON_IsString(it) && strcmp(it->valuestring, "-inf") == 0)
      v[i] = -INFINITY;
    else
      return -1;
  }
  return i == n ? 0 : -1;
}

static double num(const cJSON *o, const char *key)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

/* dir as an absolute path (existing or not) into buf. */
static int absolute(const char *dir, const char *cwd, char *buf, size_t cap)
{
  int n = dir[0] == '/' ? snprintf(buf, cap, "%s", dir) : snprintf(buf, cap, "%s/%s", cwd, dir);
  return n > 0 && (size_t)n < cap ? 0 : -1;
}

/* Copy bytes [from, to) of file f into out, hashing them into *hash (ts_cli_fnv1a). */
static int copy_range(FILE *f, uint64_t from, uint64_t to, FILE *out, uint64_t *hash)
{
  char buf[1 << 16];
  if (fseeko(f, (off_t)from, SEEK_SET) != 0)
    return -1;
  while (from < to) {
    size_t want = to - from < sizeof buf ? (size_t)(to - from) : sizeof buf;
    size_t got = fread(buf, 1, want, f);
    if (got != want || fwrite(buf, 1, got, out) != got)
      return -1;
    *hash = ts_cli_fnv1a(*hash, buf, got);
    from += got;
  }
  return 0;
}

/* Fill the sweep's points from the shards' rows (sorted). */
static int adopt_points(ts_sweep *s, prow *rows, size_t nrows, const shard *sh)
{
  for (size_t i = 0; i < nrows; i++) {
    const cJSON *x = rows[i].x;
    int reps = (int)num(x, "replications");
    const cJSON *cls = cJSON_GetObjectItemCaseSensitive(x, "class");
    ts_point *p = reps >= 0 && cJSON_IsString(cls) ? ts_sweep_add_point(s, reps) : NULL;
    if (!p)
      return merge_fail(sh[rows[i].shard].dir, "partial.json: a point is malformed or memory ran out");
    p->index = rows[i].index;
    p->combo = (int)num(x, "combo");
    p->n = (int)num(x, "n");
    p->workers = (int)num(x, "workers");
    p->klass = (int)num(x, "klass");
    p->replications = reps;
    p->samples = (size_t)num(x, "samples");
    p->outside = (int)num(x, "outside");
    p->ci_missed = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(x, "ci_missed"));
    p->ci_rel_col = (int)num(x, "ci_rel_col") < (int)s->ncols ? (int)num(x, "ci_rel_col") : -1;
    p->ci_rel = p->ci_rel_col >= 0 && cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(x, "ci_rel")) ? num(x, "ci_rel")
                                                                                                   : INFINITY;
    p->class_name = strdup(cls->valuestring);
    if (!p->class_name || p->combo < 0 || (size_t)p->combo >= s->ncombos ||
        read_numbers(cJSON_GetObjectItemCaseSensitive(x, "value"), p->value, s->ncols) ||
        read_numbers(cJSON_GetObjectItemCaseSensitive(x, "mean"), p->mean, s->ncols) ||
        read_numbers(cJSON_GetObjectItemCaseSensitive(x, "ci95"), p->ci95, s->ncols) ||
        read_numbers(cJSON_GetObjectItemCaseSensitive(x, "rep"), p->rep, s->ncols * (size_t)reps))
      return merge_fail(sh[rows[i].shard].dir, "partial.json: a point's values do not match the scenario's columns");
    if (reps > s->max_replications)
      s->max_replications = reps;
  }
  return 0;
}

/* Add the notes in shard root's partial.json to n: counts summed, and each
 * first the one of the earliest point in the sweep's order (the first the
 * unsharded run says: the points are the shards', disjoint). "identical"
 * and "replicated" may be missing (a shard of an earlier tssim: none).
 * Returns 0, or -1 when "notes" is not what notes_json writes. */
static int add_notes(ts_sweep_notes *n, const cJSON *root)
{
  ts_sweep_note *v[] = {&n->window_missed, &n->backlogged, &n->identical, &n->overloaded};
  const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, "notes");
  const cJSON *rep = cJSON_GetObjectItemCaseSensitive(o, "replicated");
  if (rep && !(cJSON_IsNumber(rep) && rep->valuedouble >= 0 && rep->valuedouble < 9e15))
    return -1;
  n->replicated += rep ? (size_t)rep->valuedouble : 0;
  for (int i = 0; i < (int)(sizeof v / sizeof *v); i++) {
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, note_names[i]),
                *first = cJSON_GetObjectItemCaseSensitive(x, "first");
    if (i == 2 && !x)
      continue;
    double count = num(x, "count"), at = num(x, "first_point");
    if (!(count >= 0 && count < 9e15) || !(at >= 0 && at < 9e15) || !cJSON_IsString(first) ||
        strlen(first->valuestring) >= sizeof v[i]->first)
      return -1;
    if (count == 0)
      continue;
    if (v[i]->count == 0 || (size_t)at < v[i]->first_point) {
      snprintf(v[i]->first, sizeof v[i]->first, "%s", first->valuestring);
      v[i]->first_point = (size_t)at;
    }
    v[i]->count += (size_t)count;
  }
  return 0;
}

/* A row's samples_bytes [*from, *to): 0, or -1 when it has none (a point's
 * rows but its last), -2 when it is not two byte offsets, from <= to. */
static int samples_range(const prow *r, uint64_t *from, uint64_t *to)
{
  const cJSON *b = cJSON_GetObjectItemCaseSensitive(r->x, "samples_bytes");
  if (!b)
    return -1;
  const cJSON *f = cJSON_IsArray(b) ? b->child : NULL, *t = f ? f->next : NULL;
  if (!cJSON_IsNumber(f) || !cJSON_IsNumber(t) || t->next || !(f->valuedouble >= 0) ||
      !(t->valuedouble >= f->valuedouble) || t->valuedouble > 9e15)
    return -2;
  *from = (uint64_t)f->valuedouble;
  *to = (uint64_t)t->valuedouble;
  return 0;
}

/* Before anything is written: every shard's samples.csv can be opened and
 * holds the byte ranges its partial.json names (a shard folder whose
 * samples.csv was cut short or replaced is bad input, not an I/O failure).
 * Returns 0, or TS_EXIT_USAGE after one line naming the file, the JSON path
 * and what was expected. */
static int check_samples(const prow *rows, size_t nrows, const shard *sh, int nsh, int shards)
{
  for (int k = 0; k < nsh; k++) {
    uint64_t end = 0, from, to;
    size_t at = 0; /* the row of sh[k]'s points that ends last */
    for (size_t i = 0; i < nrows; i++) {
      int r = rows[i].shard == k ? samples_range(&rows[i], &from, &to) : -1;
      if (r == -2) {
        char what[160];
        snprintf(what, sizeof what, "partial.json: points[%zu].samples_bytes: expected [FROM, TO], byte offsets, "
                 "FROM <= TO", rows[i].order);
        return merge_fail(sh[k].dir, what);
      }
      if (r == 0 && to >= end) {
        end = to;
        at = rows[i].order;
      }
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/samples.csv", sh[k].dir);
    FILE *f = fopen(path, "rb");
    struct stat st;
    if (!f || fstat(fileno(f), &st) != 0) {
      fprintf(stderr, "tssim: %s: cannot read: %s (expected the samples.csv of `tssim run ... --shard %d/%d`)\n", path,
              strerror(errno), sh[k].k, shards);
      if (f)
        fclose(f);
      return TS_EXIT_USAGE;
    }
    fclose(f);
    if ((uint64_t)st.st_size < end) {
      fprintf(stderr, "tssim: %s: %lld bytes, expected at least %llu (partial.json points[%zu].samples_bytes ends "
              "there): cut short? (run shard %d/%d again)\n", path, (long long)st.st_size, (unsigned long long)end, at,
              sh[k].k, shards);
      return TS_EXIT_USAGE;
    }
  }
  return 0;
}

/* Write the merged samples.csv into batch a: the header, then each point's
 * rows from its shard (check_samples checked the ranges). The rows copied
 * from each shard, in its file's order, must hash to its partial.json's
 * samples_fnv1a: else the batch is aborted (the folder stays as it was) and
 * TS_EXIT_USAGE returned after one line naming the shard's samples.csv. */
static int merge_samples(ts_atomic *a, const char *outdir, const ts_loaded *L, const prow *rows, size_t nrows,
                         const shard *sh, int nsh, int shards)
{
  ts_err e;
  FILE **in = calloc((size_t)nsh, sizeof *in);
  uint64_t *hash = calloc((size_t)nsh, sizeof *hash);
  FILE *out = in && hash ? ts_atomic_open(a, outdir, "samples.csv", &e) : NULL;
  if (!out) {
    fprintf(stderr, "tssim: %s\n", in && hash ? e.msg : "out of memory");
    free(in);
    free(hash);
    return TS_EXIT_IO;
  }
  for (int k = 0; k < nsh; k++)
    hash[k] = TS_CLI_FNV1A_INIT;
  ts_report_samples_header(out, &L->sc, &L->model);
  int rc = 0;
  for (size_t i = 0; i < nrows && rc == 0; i++) {
    uint64_t from, to;
    if (samples_range(&rows[i], &from, &to) != 0)
      continue;
    int k = rows[i].shard;
    char path[4200];
    snprintf(path, sizeof path, "%s/samples.csv", sh[k].dir);
    if (!in[k] && !(in[k] = fopen(path, "rb"))) {
      fprintf(stderr, "tssim: %s: cannot read: %s\n", path, strerror(errno));
      rc = TS_EXIT_IO;
    } else if (copy_range(in[k], from, to, out, &hash[k])) {
      fprintf(stderr, "tssim: %s: cannot copy the rows partial.json names into %s/samples.csv\n", path, outdir);
      rc = TS_EXIT_IO;
    }
  }
  for (int k = 0; k < nsh && rc == 0; k++) {
    const cJSON *want = cJSON_GetObjectItemCaseSensitive(sh[k].root, "samples_fnv1a");
    char have[24];
    snprintf(have, sizeof have, "%016llx", (unsigned long long)hash[k]);
    if (!cJSON_IsString(want) || strcmp(want->valuestring, have) != 0) {
      fprintf(stderr, "tssim: %s/samples.csv: its rows are not the bytes shard %d/%d wrote (FNV-1a %s, partial.json "
              "samples_fnv1a %s): changed since? (run shard %d/%d again)\n", sh[k].dir, sh[k].k, shards, have,
              cJSON_IsString(want) ? want->valuestring : "missing", sh[k].k, shards);
      rc = TS_EXIT_USAGE;
    }
  }
  for (int k = 0; k < nsh; k++)
    if (in[k])
      fclose(in[k]);
  free(in);
  free(hash);
  if (rc)
    ts_atomic_abort(a);
  return rc;
}

int ts_cmd_merge(int argc, char **argv)
{
  static const struct option opts[] = {{"output", required_argument, NULL, 'o'},
                                       {"no-plots", no_argument, NULL, 'P'},
                                       {"quiet", no_argument, NULL, 'q'},
                                       {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
  const char *outarg = NULL;
  int plots = 1, quiet = 0, c;
  optind = 1;
  opterr = 0;
  while ((c = getopt_long(argc, argv, "o:qh", opts, NULL)) != -1) {
    switch (c) {
    case 'o':
      if (!*optarg)
        return ts_cli_usage_error("-o: expected a folder, got an empty path");
      outarg = ts_cli_folder(optarg);
      break;
    case 'P': plots = 0; break;
    case 'q': quiet = 1; break;
    case 'h': usage(stdout); return 0;
    default: return ts_cli_bad_option("merge", argv);
    }
  }
  int nsh = argc - optind;
  if (nsh < 1)
    return ts_cli_usage_error("merge: expected the partial folders of a sharded run (see tssim merge --help)");
  char here[4096];
  if (!getcwd(here, sizeof here))
    return ts_cli_usage_error("merge: cannot read the working folder: %s", strerror(errno));
  shard *sh = calloc((size_t)nsh, sizeof *sh);
  char (*dirs)[4200] = calloc((size_t)nsh, sizeof *dirs);
  if (!sh || !dirs) {
    free(sh);
    free(dirs);
    return TS_EXIT_FAILED;
  }
  int rc = 0, shards = 0;
  const char *cwd = NULL;
  char *key0 = NULL;
  double total = -1;
  /* read and check every partial.json */
  for (int i = 0; i < nsh && rc == 0; i++) {
    ts_err e;
    char path[4300];
    if (absolute(argv[optind + i], here, dirs[i], sizeof dirs[i])) {
      rc = merge_fail(argv[optind + i], "path too long");
      break;
    }
    sh[i].dir = argv[optind + i];
    snprintf(path, sizeof path, "%s/partial.json", dirs[i]);
    if (ts_json_load(path, &sh[i].root, &e)) {
      fprintf(stderr, "tssim: %s (is %s the folder of `tssim run ... --shard K/M`?)\n", e.msg, sh[i].dir);
      rc = e.nomem ? TS_EXIT_FAILED : TS_EXIT_USAGE;
      break;
    }
    const cJSON *r = sh[i].root, *run = cJSON_GetObjectItemCaseSensitive(r, "run"),
                *wd = cJSON_GetObjectItemCaseSensitive(r, "cwd");
    int m = (int)num(r, "shards");
    sh[i].k = (int)num(r, "shard");
    char *key = run ? cJSON_PrintUnformatted(run) : NULL;
    if (num(r, "tssim_partial") != PARTIAL_FORMAT || !key || !cJSON_IsString(wd) || m < 1 || sh[i].k < 1 ||
        sh[i].k > m) {
      rc = merge_fail(path, "not a partial result of this tssim version");
    } else if (i == 0) {
      shards = m;
      key0 = key;
      key = NULL;
      cwd = wd->valuestring;
      total = num(r, "points_total");
    } else if (m != shards || strcmp(key, key0) != 0 || strcmp(wd->valuestring, cwd) != 0 ||
               num(r, "points_total") != total) {
      char what[300];
      snprintf(what, sizeof what, "not a shard of the same run as %s (scenario, options and working folder differ)",
               sh[0].dir);
      rc = merge_fail(sh[i].dir, what);
    }
    for (int j = 0; j < i && rc == 0; j++)
      if (sh[j].k == sh[i].k) {
        char what[300];
        snprintf(what, sizeof what, "shard %d/%d again (also %s)", sh[i].k, shards, sh[j].dir);
        rc = merge_fail(sh[i].dir, what);
      }
    cJSON_free(key);
  }
  if (rc == 0 && nsh != shards) {
    char missing[512] = "";
    size_t len = 0;
    for (int k = 1; k <= shards && len + 16 < sizeof missing; k++) {
      int found = 0;
      for (int i = 0; i < nsh; i++)
        found |= sh[i].k == k;
      if (!found)
        len += (size_t)snprintf(missing + len, sizeof missing - len, "%s%d", len ? ", " : "", k);
    }
    fprintf(stderr, "tssim: merge: %d of %d shards given; missing shard(s) %s of %d\n", nsh, shards, missing, shards);
    rc = TS_EXIT_USAGE;
  }
  /* load the scenario as the shards' run did, from where it ran */
  ts_run_opts o;
  ts_loaded L;
  int have_opts = 0, have_L = 0;
  char **rargv = NULL;
  int rargc = 0;
  if (rc == 0) {
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(sh[0].root, "argv");
    rargc = cJSON_GetArraySize(args);
    rargv = calloc((size_t)rargc + 1, sizeof *rargv);
    int i = 0;
    for (const cJSON *it = args ? args->child : NULL; rargv && it; it = it->next)
      rargv[i++] = cJSON_IsString(it) ? it->valuestring : (char *)"";
    if (!rargv || ts_cli_run_parse(rargc, rargv, &o, &rc)) {
      rc = rc ? rc : TS_EXIT_FAILED;
    } else {
      have_opts = 1;
      if (chdir(cwd) != 0 && !quiet)
        fprintf(stderr, "tssim: merge: %s (where the shards ran) is not here: loading %s from %s\n", cwd, o.scenario,
                here);
      rc = ts_cli_run_load(&o, &L);
      have_L = rc == 0;
      if (have_L) /* what the run said */
        ts_cli_run_notes(&o, &L);
      if (chdir(here) != 0 && rc == 0)
        rc = ts_cli_usage_error("merge: cannot return to %s: %s", here, strerror(errno));
    }
  }
  /* the sweep's columns, then the shards' points in its order */
  ts_sweep s;
  memset(&s, 0, sizeof s);
  int sizes[16];
  ts_sweep_spec spec;
  prow *rows = NULL;
  size_t nrows = 0;
  if (rc == 0) {
    ts_cli_run_spec(&o, &L, sizes, &spec);
    if (ts_sweep_prepare(&spec, &s) != 0) {
      fprintf(stderr, "tssim: %s: %s\n", L.sc.model_path, s.errmsg);
      rc = TS_EXIT_USAGE;
    } else if ((double)s.points_total != total) {
      rc = merge_fail(sh[0].dir, "partial.json: the scenario has changed since the shards ran");
    }
  }
  for (int i = 0; i < nsh && rc == 0; i++) {
    const cJSON *pts = cJSON_GetObjectItemCaseSensitive(sh[i].root, "points");
    if (num(sh[i].root, "ncols") != (double)s.ncols) {
      rc = merge_fail(sh[i].dir, "partial.json: the scenario's columns have changed since the shards ran");
      break;
    }
    size_t order = 0;
    for (const cJSON *x = pts ? pts->child : NULL; x; x = x->next) {
      prow *v = realloc(rows, (nrows + 1) * sizeof *v);
      if (!v) {
        rc = TS_EXIT_FAILED;
        break;
      }
      rows = v;
      double idx = num(x, "index");
      if (!(idx >= 0 && idx < total) || (size_t)idx % (size_t)shards != (size_t)(sh[i].k - 1)) {
        rc = merge_fail(sh[i].dir, "partial.json: a point that is not the shard's");
        break;
      }
      rows[nrows++] = (prow){x, i, (size_t)idx, order++};
    }
    if (rc == 0 && add_notes(&s.notes, sh[i].root)) {
      rc = merge_fail(sh[i].dir, "partial.json: notes: expected {\"window_missed\": {\"count\", \"first\", "
                      "\"first_point\"}, \"backlogged\": {...}, \"identical\": {...}, \"overloaded\": {...}, \"replicated\": N}");
      break;
    }
    uint64_t ev = 0;
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(sh[i].root, "events");
    if (cJSON_IsNumber(e))
      ev = (uint64_t)e->valuedouble;
    s.events += ev;
  }
  if (rc == 0) {
    qsort(rows, nrows, sizeof *rows, cmp_prow);
    size_t points = 0;
    for (size_t i = 0; i < nrows; i++)
      points += i == 0 || rows[i].index != rows[i - 1].index;
    if (points != (size_t)total) {
      char what[200];
      snprintf(what, sizeof what, "the shards hold %zu of the sweep's %.0f points (a shard failed or was cut short?)",
               points, total);
      rc = merge_fail("merge", what);
    }
  }
  if (rc == 0 && o.samples)
    rc = check_samples(rows, nrows, sh, nsh, shards);
  if (rc == 0)
    rc = adopt_points(&s, rows, nrows, sh);
  /* the results folder, checked before anything is printed */
  char dirbuf[1024];
  const char *outdir = outarg;
  if (rc == 0 && !outdir) {
    snprintf(dirbuf, sizeof dirbuf, "results/%s", L.sc.name);
    outdir = dirbuf;
  }
  if (rc == 0)
    rc = outdir_not_a_shard(outdir, sh, nsh);
  if (rc == 0)
    rc = ts_cli_outdir_check(outdir, outarg != NULL);
  if (rc == 0) {
    s.points_done = (size_t)total;
    ts_sweep_ratios(&s);
    ts_cli_notes(&s.notes, 0); /* the unsharded run's, on stderr even with -q */
    if (!quiet)
      ts_cli_run_print(&L, &s, o.columns);
    ts_cli_baseline_note(&L, &s);
  }
  /* write the results folder */
  if (rc == 0) {
    ts_atomic a;
    ts_outdir made = {0};
    int lock = -1;
    ts_atomic_init(&a);
    ts_cli_interrupt_catch();
    ts_cli_interrupt_files(&a);
    rc = ts_cli_outdir_lock(outdir, &made, quiet, &lock);
    if (rc == 0 && (!o.samples || (rc = merge_samples(&a, outdir, &L, rows, nrows, sh, nsh, shards)) == 0)) {
      ts_cli_outdir_say_replacing(outdir); /* only now: the shards' samples matched their partial.json */
      rc = ts_cli_run_commit(&a, outdir, &L, &s, o.samples, quiet); /* frees s on failure */
      if (rc != 0)
        memset(&s, 0, sizeof s);
      else
        rc = ts_cli_run_plots(outdir, plots, quiet);
    }
    ts_cli_interrupt_files(NULL);
    if (rc != 0)
      ts_cli_outdir_unmake(&made);
    ts_cli_outdir_unlock(lock);
    while (made.n > 0)
      free(made.made[--made.n]);
  }
  ts_sweep_finish(&s);
  free(rows);
  if (have_L)
    ts_cli_unload(&L);
  if (have_opts)
    ts_cli_run_opts_finish(&o);
  free(rargv);
  free(key0);
  for (int i = 0; i < nsh; i++)
    cJSON_Delete(sh[i].root);
  free(sh);
  free(dirs);
  return rc;
}
