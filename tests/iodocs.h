/* Small model and scenario documents the io suites (test_io.c,
 * test_io_cli.c) write as inputs. */
#ifndef TS_TEST_IODOCS_H
#define TS_TEST_IODOCS_H

/* A model document: optional top-level members `extra` (each followed by ", "), then classes. */
#define DOC(extra, classes) "{" extra "\"classes\": [" classes "]}"
#define MODEL(classes) DOC("", classes)
#define CLASS_OF(steps) "{\"count\": 1, \"program\": [" steps "]}"
#define PROGRAM(steps) MODEL(CLASS_OF(steps))
#define PROGRAM_WITH(extra, steps) DOC(extra ", ", CLASS_OF(steps))
#define OK_STEP "{\"op\": \"cpu\", \"ms\": 1}"
#define OK_MODEL PROGRAM(OK_STEP)
#define WITH(extra) PROGRAM_WITH(extra, OK_STEP)
/* A one-point scenario of m.json; `extra`: more members, each starting with ", ". */
#define SCENARIO(extra) "{\"name\": \"s\", \"model\": \"m.json\", \"n\": [1], \"workers\": [1]" extra "}"

#endif
