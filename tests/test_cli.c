/* The command line as a user meets it (issue 13, "Hard inputs and a new
 * user's bug list"): what each command prints, its exit status (0 ok, 1 the
 * simulation failed, 2 bad usage or input, 3 an I/O failure writing results,
 * 130/143 interrupted), the results folder it leaves, and the size guards.
 * Every test runs the built binary (TSSIM_BINARY) from the source root. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define RR "scenarios/rr-wave.json"
#define ZC "scenarios/zero-cache-wave.json"
#define RR30 RR " --set params.c_ms=30 --set 'classes[0].program[0].rows=30'"

/* ---- explain ---- */

/* Issue 13 item 1: the processor-sharing line printed the last simulated
 * completion through a buffer already holding another number, so it read
 * "last: limit 90 ms, simulated 78 ms" two lines after "simulated 90 ms: exact". */
START_TEST(cli_explain_numbers_of_one_line_are_distinct)
{
  char *out;
  ck_assert_int_eq(tu_tssim("explain " RR30 " --n 5 --workers 2", &out, NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, "last completion ceil(N/W)*C = 3*30 = 90 ms; simulated 90 ms: exact\n"));
  ck_assert_ptr_nonnull(
    strstr(out, "  mean completion: limit 78 ms, simulated 70 ms (8 ms earlier); last: limit 90 ms, simulated 90 ms\n"));
  free(out);
}
END_TEST

Suite *cli_suite(void)
{
  Suite *s = suite_create("cli");
  const TTest *const out[] = {cli_explain_numbers_of_one_line_are_distinct, NULL};
  tu_tcase(s, "output", out, NULL, NULL, 300);
  return s;
}
