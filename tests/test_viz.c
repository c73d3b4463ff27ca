#include <check.h>

START_TEST(viz_placeholder)
{
  ck_assert_int_eq(1, 1);
}
END_TEST

Suite *viz_suite(void)
{
  Suite *s = suite_create("viz");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, viz_placeholder);
  suite_add_tcase(s, tc);
  return s;
}
