#include <check.h>

START_TEST(fit_placeholder)
{
  ck_assert_int_eq(1, 1);
}
END_TEST

Suite *fit_suite(void)
{
  Suite *s = suite_create("fit");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, fit_placeholder);
  suite_add_tcase(s, tc);
  return s;
}
