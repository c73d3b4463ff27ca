#include "model/op.h"

#include <string.h>

static const ts_op_type *const all[] = {&ts_op_cpu,        &ts_op_io,     &ts_op_sleep,  &ts_op_yield,
                                        &ts_op_lock,       &ts_op_unlock, &ts_op_mark,   &ts_op_span_begin,
                                        &ts_op_span_end,   &ts_op_wait,   &ts_op_notify, &ts_op_hop,
                                        &ts_op_add,        &ts_op_set,      &ts_op_register, &ts_op_pending, &ts_op_poll_children,
                                        &ts_op_exit,
                                        NULL};

const ts_op_type *ts_op_find(const char *name)
{
  for (size_t i = 0; all[i]; i++)
    if (strcmp(all[i]->name, name) == 0)
      return all[i];
  return NULL;
}

const ts_op_type *const *ts_op_all(void)
{
  return all;
}
