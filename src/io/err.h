/* Input errors: one message naming the file, the JSON path and what was
 * expected. Every loader fills a ts_err and returns -1; the CLI prints the
 * message and exits with status 2 (1 when memory ran out). */
#ifndef TS_ERR_H
#define TS_ERR_H

typedef struct ts_err {
  char msg[1024];
  int nomem;  /* the message starts with "out of memory": memory ran out, the input may be fine */
} ts_err;

/* Format "FILE: PATH: message" into e (path may be NULL or empty); control
 * characters (from user input) become '?', so the message is one line. A
 * message that starts with "out of memory" sets e->nomem (the CLI exits 1
 * for it, not 2: the input was not at fault). Returns -1. */
int ts_err_set(ts_err *e, const char *file, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
