#include <check.h>

START_TEST(model_placeholder)
{
  ck_assert_int_eq(1, 1);
}
END_TEST

Suite *model_suite(void)
{
  Suite *s = suite_create("model");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, model_placeholder);
  suite_add_tcase(s, tc);
  return s;
}
