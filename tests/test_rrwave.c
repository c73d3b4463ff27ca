#include <check.h>

START_TEST(rrwave_placeholder)
{
  ck_assert_int_eq(1, 1);
}
END_TEST

Suite *rrwave_suite(void)
{
  Suite *s = suite_create("rrwave");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, rrwave_placeholder);
  suite_add_tcase(s, tc);
  return s;
}
