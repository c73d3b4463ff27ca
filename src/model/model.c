#include "model/model.h"

#include <stdlib.h>

void ts_model_finish(ts_model *m)
{
  if (!m)
    return;
  for (size_t c = 0; c < m->nclasses; c++) {
    for (size_t s = 0; s < m->classes[c].nsteps; s++)
      free(m->classes[c].steps[s].label);
    free(m->classes[c].steps);
    free(m->classes[c].name);
  }
  free(m->classes);
  for (size_t l = 0; l < m->nlocks; l++)
    free(m->locks[l].name);
  free(m->locks);
  free(m->name);
  free(m->task_id);
  free(m->group_prefix);
  m->classes = NULL;
  m->locks = NULL;
  m->nclasses = m->nlocks = 0;
  m->name = m->task_id = m->group_prefix = NULL;
}

int ts_model_class_count(const ts_model *m, size_t c, int n)
{
  return m->classes[c].count == TS_COUNT_N ? n : m->classes[c].count;
}
