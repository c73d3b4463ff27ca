#include <check.h>

START_TEST(sched_placeholder)
{
  ck_assert_int_eq(1, 1);
}
END_TEST

Suite *sched_suite(void)
{
  Suite *s = suite_create("sched");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, sched_placeholder);
  suite_add_tcase(s, tc);
  return s;
}
