#include <check.h>

START_TEST(engine_placeholder)
{
  ck_assert_int_eq(1, 1);
}
END_TEST

Suite *engine_suite(void)
{
  Suite *s = suite_create("engine");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, engine_placeholder);
  suite_add_tcase(s, tc);
  return s;
}
