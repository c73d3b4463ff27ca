#include "io/atomic.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int ts_mkdirs(const char *dir, ts_err *e)
{
  char buf[1024];
  if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf)
    return ts_err_set(e, dir, NULL, "path too long");
  for (char *p = buf + 1; ; p++) {
    if (*p == '/' || *p == '\0') {
      char c = *p;
      *p = '\0';
      struct stat st;
      if (mkdir(buf, 0777) != 0 && errno != EEXIST)
        return ts_err_set(e, buf, NULL, "cannot create the folder: %s", strerror(errno));
      if (stat(buf, &st) != 0)
        return ts_err_set(e, buf, NULL, "cannot create the folder: %s", strerror(errno));
      if (!S_ISDIR(st.st_mode))
        return ts_err_set(e, buf, NULL, "cannot create the folder: a file of that name exists");
      *p = c;
      if (c == '\0')
        break;
    }
  }
  return 0;
}

void ts_atomic_init(ts_atomic *a)
{
  memset(a, 0, sizeof *a);
}

/* dir/name suffix, malloc'd (one slash: a dir of "/" or "out/" gives "/name", "out/name"). */
static char *join(const char *dir, const char *name, const char *suffix)
{
  size_t len = strlen(dir) + strlen(name) + strlen(suffix) + 2;
  char *s = malloc(len);
  if (s)
    snprintf(s, len, "%s%s%s%s", dir, *dir && dir[strlen(dir) - 1] == '/' ? "" : "/", name, suffix);
  return s;
}

FILE *ts_atomic_open(ts_atomic *a, const char *dir, const char *name, ts_err *e)
{
  if (a->n == TS_ATOMIC_MAX) {
    ts_err_set(e, dir, NULL, "too many output files");
    return NULL;
  }
  char suffix[64];
  snprintf(suffix, sizeof suffix, ".tmp.%ld", (long)getpid());
  char *fin = join(dir, name, ""), *tmp = join(dir, name, suffix);
  FILE *f = fin && tmp ? fopen(tmp, "wb") : NULL;
  if (!f) {
    int err = fin && tmp ? errno : ENOMEM;
    ts_err_set(e, fin ? fin : name, NULL, "cannot write: %s", strerror(err));
    free(fin);
    free(tmp);
    return NULL;
  }
  a->final[a->n] = fin;
  a->tmp[a->n] = tmp;
  a->f[a->n] = f;
  atomic_signal_fence(memory_order_seq_cst); /* the path is stored before the count says so */
  a->n++;
  return f;
}

const char *ts_atomic_split(const char *path, char *dir, size_t cap)
{
  const char *slash = strrchr(path, '/');
  if (slash && (size_t)(slash - path) >= cap)
    return NULL;
  snprintf(dir, cap, "%.*s", slash == path ? 1 : slash ? (int)(slash - path) : 1, slash ? path : ".");
  return slash ? slash + 1 : path;
}

FILE *ts_atomic_open_path(ts_atomic *a, const char *path, ts_err *e)
{
  char dir[1024];
  const char *name = ts_atomic_split(path, dir, sizeof dir);
  if (!name || !*name) {
    ts_err_set(e, path, NULL, name ? "expected a file name, not a folder" : "path too long");
    return NULL;
  }
  return ts_mkdirs(dir, e) ? NULL : ts_atomic_open(a, dir, name, e);
}

int ts_atomic_remove(ts_atomic *a, const char *dir, const char *name, ts_err *e)
{
  if (a->ngone == TS_ATOMIC_GONE_MAX)
    return ts_err_set(e, dir, NULL, "too many files to remove");
  char *path = join(dir, name, "");
  if (!path)
    return ts_err_set(e, dir, NULL, "out of memory");
  a->gone[a->ngone++] = path;
  return 0;
}

static void release(ts_atomic *a, int remove_tmp)
{
  int n = a->n;
  for (int i = 0; i < n; i++) {
    if (a->f[i])
      fclose(a->f[i]);
    if (remove_tmp)
      remove(a->tmp[i]);
  }
  a->n = 0; /* before any path is freed (ts_atomic_unlink_temporaries) */
  atomic_signal_fence(memory_order_seq_cst);
  for (int i = 0; i < n; i++) {
    free(a->final[i]);
    free(a->tmp[i]);
  }
  for (int i = 0; i < a->ngone; i++)
    free(a->gone[i]);
  a->ngone = 0;
}

/* Path of the backup of `path` while a batch is committed. */
static char *backup_name(const char *path)
{
  size_t len = strlen(path) + 32;
  char *b = malloc(len);
  if (b)
    snprintf(b, len, "%s.old.%ld", path, (long)getpid());
  return b;
}

/* The files a commit moves aside: the n targets, then the ngone removals. */
static const char *old_file(const ts_atomic *a, int i)
{
  return i < a->n ? a->final[i] : a->gone[i - a->n];
}

/* Undo a failed commit: remove the first `installed` new files, then rename
 * every backup made back over its file. */
static void roll_back(ts_atomic *a, char **backup, int installed)
{
  for (int i = 0; i < installed; i++)
    remove(a->final[i]);
  for (int i = 0; i < a->n + a->ngone; i++)
    if (backup[i])
      rename(backup[i], old_file(a, i));
}

int ts_atomic_commit(ts_atomic *a, ts_err *e)
{
  int bad = -1, why = 0;
  for (int i = 0; i < a->n; i++) {
    int err = ferror(a->f[i]);
    errno = 0;
    if ((fclose(a->f[i]) != 0 || err) && bad < 0) {
      bad = i;
      why = errno; /* fclose's, when it failed writing the rest */
    }
    a->f[i] = NULL;
  }
  if (bad >= 0) {
    ts_err_set(e, a->final[bad], NULL, "cannot write: %s", why ? strerror(why) : "write failed (disk full?)");
    release(a, 1);
    return -1;
  }
  /* Only regular files are replaced or removed; check them all before
   * touching any. */
  for (int i = 0; i < a->n + a->ngone; i++) {
    struct stat st;
    if (stat(old_file(a, i), &st) == 0 && !S_ISREG(st.st_mode)) {
      ts_err_set(e, old_file(a, i), NULL, "cannot %s: not a regular file", i < a->n ? "replace" : "remove");
      release(a, 1);
      return -1;
    }
  }
  /* Move the old files aside, then install the new ones; on any failure put
   * every old file back, so the batch happens entirely or not at all. */
  char *backup[TS_ATOMIC_MAX + TS_ATOMIC_GONE_MAX] = {0};
  int rc = 0;
  for (int i = 0; i < a->n + a->ngone && rc == 0; i++) {
    const char *old = old_file(a, i);
    if (access(old, F_OK) != 0)
      continue;
    backup[i] = backup_name(old);
    if (!backup[i] || rename(old, backup[i]) != 0) {
      rc = ts_err_set(e, old, NULL, "cannot %s: %s", i < a->n ? "replace" : "remove",
                      backup[i] ? strerror(errno) : "out of memory");
      free(backup[i]);
      backup[i] = NULL;
      roll_back(a, backup, 0);
    }
  }
  for (int i = 0; i < a->n && rc == 0; i++)
    if (rename(a->tmp[i], a->final[i]) != 0) {
      rc = ts_err_set(e, a->final[i], NULL, "cannot replace: %s", strerror(errno));
      roll_back(a, backup, i);
    }
  for (int i = 0; i < a->n + a->ngone; i++) {
    if (rc == 0 && backup[i])
      remove(backup[i]);
    free(backup[i]);
  }
  release(a, rc != 0);
  return rc;
}

void ts_atomic_abort(ts_atomic *a)
{
  release(a, 1);
}

void ts_atomic_unlink_temporaries(const ts_atomic *a)
{
  for (int i = 0; i < a->n; i++)
    unlink(a->tmp[i]);
}
