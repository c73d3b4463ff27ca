/* tssim as installed: `meson install --destdir` into a staging folder, then
 * the staged tssim run from another folder (its plots and its trace page are
 * compiled in, the plot scripts' copies are where --help says), the man page
 * read by man -l, the bash and zsh completions, which are generated from the
 * same --help text, completing commands, options and file arguments, and the
 * example program of examples/ built against the staged library with
 * pkg-config. */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

static char tmpdir[PATH_MAX], stage[PATH_MAX + 16];

/* An installed file: the staging folder + the install path (an environment
 * variable meson test sets, e.g. TSSIM_INSTALL_BIN) + rel, in path. */
static void staged(char *path, size_t cap, const char *var, const char *rel)
{
  const char *dir = getenv(var);
  ck_assert_msg(dir != NULL, "%s must be set (run the tests with meson test)", var);
  ck_assert_int_lt(snprintf(path, cap, "%s%s/%s", stage, dir, rel), (int)cap);
}

/* meson install the build this test belongs to into stage. */
static void install(void)
{
  const char *meson = getenv("TSSIM_MESON"), *build = getenv("TSSIM_BUILD_ROOT");
  ck_assert_msg(meson && build, "TSSIM_MESON and TSSIM_BUILD_ROOT must be set (run the tests with meson test)");
  tu_mkdtemp(tmpdir, sizeof tmpdir, "install");
  snprintf(stage, sizeof stage, "%s/stage", tmpdir);
  char *out;
  int rc = tu_sh(&out, "'%s' install -C '%s' --no-rebuild --quiet --destdir '%s'", meson, build, stage);
  ck_assert_msg(rc == 0, "meson install failed (%d):\n%s", rc, out);
  free(out);
}

START_TEST(install_staged_tssim_runs_from_another_folder)
{
  char bin[PATH_MAX * 2], plots[PATH_MAX * 2], path[PATH_MAX * 3];
  char *out, *scenario = tu_source_path("scenarios/rr-wave.json");
  install();
  staged(bin, sizeof bin, "TSSIM_INSTALL_BIN", "tssim");
  staged(plots, sizeof plots, "TSSIM_INSTALL_DATA", "tssim/plots");
  ck_assert_msg(tu_exists(bin), "not installed: %s", bin);
  /* the help names where the plot scripts' copies are installed */
  ck_assert_int_eq(tu_sh(&out, "'%s' --help", bin), 0);
  ck_assert_ptr_nonnull(strstr(out, strstr(plots, getenv("TSSIM_INSTALL_DATA"))));
  free(out);
  snprintf(path, sizeof path, "%s/wave.gp", plots);
  ck_assert_msg(tu_exists(path), "not installed: %s", path);
  /* a run from a folder without the sources: results, and plots when gnuplot is there */
  int rc = tu_sh(&out, "mkdir '%s/elsewhere' && cd '%s/elsewhere' && '%s' run '%s' --n 2 --workers 1 -o out -q",
                 tmpdir, tmpdir, bin, scenario);
  ck_assert_msg(rc == 0, "%s", out);
  free(out);
  snprintf(path, sizeof path, "%s/elsewhere/out/summary.csv", tmpdir);
  ck_assert(tu_exists(path));
  snprintf(path, sizeof path, "%s/elsewhere/out/wave.png", tmpdir);
  ck_assert_int_eq(tu_exists(path), tu_have("gnuplot"));
  /* the installed copies of the plot scripts draw the same plots */
  if (tu_have("gnuplot")) {
    rc = tu_sh(&out, "cd '%s/elsewhere' && TSSIM_PLOTS_DIR='%s' '%s' run '%s' --n 2 --workers 1 -o out2 -q", tmpdir,
               plots, bin, scenario);
    ck_assert_msg(rc == 0, "%s", out);
    free(out);
    snprintf(path, sizeof path, "%s/elsewhere/out2/wave.png", tmpdir);
    ck_assert(tu_exists(path));
  }
  /* the trace page */
  rc = tu_sh(&out, "cd '%s/elsewhere' && '%s' trace '%s' --n 2 --workers 1 -o t.json --html t.html", tmpdir, bin,
             scenario);
  ck_assert_msg(rc == 0, "%s", out);
  free(out);
  snprintf(path, sizeof path, "%s/elsewhere/t.html", tmpdir);
  char *page = tu_read_file(path, NULL);
  ck_assert_ptr_nonnull(strstr(page, "tssim trace viewer"));
  ck_assert_ptr_nonnull(strstr(page, "\"traceEvents\""));
  free(page);
  free(scenario);
  tu_rmtree(tmpdir);
}
END_TEST

/* The commands `tssim --help` lists (without "version"), into names;
 * returns how many. */
static int commands_of(const char *bin, char names[][32], int max)
{
  char *out;
  ck_assert_int_eq(tu_sh(&out, "'%s' --help", bin), 0);
  const char *p = strstr(out, "\ncommands:\n");
  ck_assert_ptr_nonnull(p);
  int n = 0;
  for (p += strlen("\ncommands:\n"); n < max && !strncmp(p, "  ", 2); p = strchr(p, '\n') + 1)
    if (sscanf(p, "%31s", names[n]) == 1 && strcmp(names[n], "version"))
      n++;
  free(out);
  ck_assert_int_ge(n, 6);
  return n;
}

/* man -l reads the installed page without a warning, and it holds each
 * command's --help: its synopsis and every option, each of which the
 * command takes. */
START_TEST(install_man_page_reads_and_holds_the_help)
{
  ck_assert_msg(tu_have("man"), "man is not installed (scripts/deps installs man-db)");
  char page[PATH_MAX * 2], bin[PATH_MAX * 2];
  char *man, *out;
  install();
  staged(page, sizeof page, "TSSIM_INSTALL_MAN", "man1/tssim.1");
  staged(bin, sizeof bin, "TSSIM_INSTALL_BIN", "tssim");
  int rc = tu_sh(&man, "MANWIDTH=2000 man --warnings -E UTF-8 -l '%s' 2>&1 >/dev/null | grep . && exit 9; "
                 "MANWIDTH=2000 man -E UTF-8 -l '%s'", page, page);
  ck_assert_msg(rc == 0, "man -l %s: %d\n%s", page, rc, man);
  ck_assert_ptr_nonnull(strstr(man, "tssim - discrete-event simulator"));
  ck_assert_ptr_nonnull(strstr(man, "EXIT STATUS"));
  ck_assert_ptr_nonnull(strstr(man, "TSSIM_PLOTS_DIR"));
  char cmds[32][32];
  int ncmds = commands_of(bin, cmds, 32);
  for (int i = 0; i < ncmds; i++) {
    ck_assert_int_eq(tu_sh(&out, "'%s' %s --help", bin, cmds[i]), 0);
    char *line = strtok(out, "\n");
    ck_assert_ptr_nonnull(strstr(man, line + strlen("usage: ")));
    for (; line; line = strtok(NULL, "\n")) {
      const char *opt = strstr(line, "--");
      if (strncmp(line, "  -", 3) && strncmp(line, "      --", 8))
        continue;
      char name[64], *said;
      ck_assert_int_eq(sscanf(opt, "%63s", name), 1);
      ck_assert_msg(strstr(man, name), "tssim %s --help has %s, the man page has not", cmds[i], name);
      /* and the command takes it (so the completions offer only real options) */
      tu_sh(&said, "'%s' %s %s 1 --help", bin, cmds[i], name);
      ck_assert_msg(!strstr(said, "unknown option"), "tssim %s %s: %s", cmds[i], name, said);
      free(said);
    }
    free(out);
  }
  free(man);
  tu_rmtree(tmpdir);
}
END_TEST

/* What the installed bash completion offers for the command line words
 * (the last is the word being completed), from folder dir: the words of
 * COMPREPLY, sorted, one per line (caller frees). */
static char *complete(const char *script, const char *dir, const char *words)
{
  char *out;
  int rc = tu_sh(&out, "cd '%s' && bash -c '. \"$0\"; COMP_WORDS=(%s); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); "
                 "_tssim; printf \"%%s\\n\" \"${COMPREPLY[@]}\" | LC_ALL=C sort' '%s'", dir, words, script);
  ck_assert_msg(rc == 0, "completing %s: %s", words, out);
  return out;
}

static void completes(const char *script, const char *dir, const char *words, const char *want)
{
  char *got = complete(script, dir, words);
  ck_assert_msg(strcmp(got, want) == 0, "completing \"%s\": got\n%swant\n%s", words, got, want);
  free(got);
}

START_TEST(install_completions_know_commands_options_and_files)
{
  char bash[PATH_MAX * 2], zsh[PATH_MAX * 2], dir[PATH_MAX + 16];
  install();
  staged(bash, sizeof bash, "TSSIM_INSTALL_DATA", "bash-completion/completions/tssim");
  staged(zsh, sizeof zsh, "TSSIM_INSTALL_DATA", "zsh/site-functions/_tssim");
  snprintf(dir, sizeof dir, "%s/files", tmpdir);
  char *out;
  ck_assert_int_eq(tu_sh(&out, "mkdir -p '%s/sub' && cd '%s' && touch m.json notes.txt", dir, dir), 0);
  free(out);
  /* every command tssim --help lists, sorted as sort(1) sorts them (LC_ALL=C in both) */
  char cmds[32][32], bin[PATH_MAX * 2], *want;
  int ncmds = commands_of((staged(bin, sizeof bin, "TSSIM_INSTALL_BIN", "tssim"), bin), cmds, 32);
  char list[32 * 34 + 1] = "";
  for (int i = 0; i < ncmds; i++) {
    strcat(list, cmds[i]);
    strcat(list, "\\n");
  }
  ck_assert_int_eq(tu_sh(&want, "printf '%s--help\\n--version\\nversion\\n' | LC_ALL=C sort", list), 0);
  char *got = complete(bash, dir, "tssim \"\"");
  ck_assert_str_eq(got, want);
  free(got);
  free(want);
  completes(bash, dir, "tssim ca", "calibrate\n");
  completes(bash, dir, "tssim run --se", "--seed\n--set\n");
  completes(bash, dir, "tssim trace --h", "--help\n--horizon\n--html\n");
  completes(bash, dir, "tssim run \"\"", "m.json\nsub\n");                 /* SCENARIO.json */
  completes(bash, dir, "tssim calibrate m.json \"\"", "m.json\nsub\n");    /* BASELINE.json */
  completes(bash, dir, "tssim run m.json -o \"\"", "sub\n");               /* DIR */
  completes(bash, dir, "tssim run m.json --output = \"\"", "sub\n");       /* --output=DIR */
  completes(bash, dir, "tssim trace m.json --html \"\"", "m.json\nnotes.txt\nsub\n"); /* FILE */
  completes(bash, dir, "tssim run m.json --n \"\"", "\n");                  /* a number: nothing */
  completes(bash, dir, "tssim merge \"\"", "sub\n");                       /* DIR... */
  if (tu_have("zsh")) {
    int rc = tu_sh(&out, "zsh -n '%s'", zsh);
    ck_assert_msg(rc == 0, "%s", out);
    free(out);
  }
  char *text = tu_read_file(zsh, NULL);
  ck_assert_ptr_nonnull(strstr(text, "#compdef tssim"));
  ck_assert_ptr_nonnull(strstr(text, "'(-o --output)--output=[results folder"));
  ck_assert_ptr_nonnull(strstr(text, "'*--set=["));
  free(text);
  tu_rmtree(tmpdir);
}
END_TEST

/* examples/sweep.c built with `pkg-config --cflags --libs tssim` against the
 * staged headers, tssim.pc and libtssim.so, run from another folder: round
 * robin's slowest actor of 16 is done at 16 x 400 ms. */
START_TEST(install_example_builds_with_pkg_config)
{
  char lib[PATH_MAX * 2], pc[PATH_MAX * 5], path[PATH_MAX * 3], *out;
  const char *cflags = getenv("TSSIM_TEST_CFLAGS") ? getenv("TSSIM_TEST_CFLAGS") : "";
  install();
  staged(lib, sizeof lib, "TSSIM_INSTALL_LIB", "");
  snprintf(pc, sizeof pc, "PKG_CONFIG_PATH='%spkgconfig' PKG_CONFIG_SYSROOT_DIR='%s' pkg-config", lib, stage);
  snprintf(path, sizeof path, "%slibtssim.a", lib);
  ck_assert_msg(tu_exists(path), "not installed: %s", path);
  ck_assert_int_eq(tu_sh(&out, "%s --static --libs tssim", pc), 0);
  ck_assert_msg(strstr(out, "-ltssim") && strstr(out, "-lgsl") && strstr(out, "-lcjson"), "%s", out);
  free(out);
  char *src = tu_source_path("examples/sweep.c"), *scenario = tu_source_path("scenarios/rr-wave.json");
  int rc = tu_sh(&out, "cd '%s' && cc -std=c11 -Wall -Wextra -Werror %s '%s' $(%s --cflags --libs tssim) -o sweep",
                 tmpdir, cflags, src, pc);
  ck_assert_msg(rc == 0, "building examples/sweep.c: %s", out);
  free(out);
  rc = tu_sh(&out, "mkdir '%s/run' && cd '%s/run' && LD_LIBRARY_PATH='%s' ../sweep '%s' 16", tmpdir, tmpdir, lib,
             scenario);
  ck_assert_msg(rc == 0, "%s", out);
  ck_assert_msg(strstr(out, "rr-wave with libtssim") && strstr(out, "6400.000"), "%s", out);
  free(out);
  /* its errors are tssim's */
  rc = tu_sh(&out, "cd '%s/run' && LD_LIBRARY_PATH='%s' ../sweep '%s' 16 params.bogus=1", tmpdir, lib, scenario);
  ck_assert_int_eq(rc, 2);
  ck_assert_msg(strstr(out, "params.bogus: no such parameter in params"), "%s", out);
  free(out);
  free(src);
  free(scenario);
  tu_rmtree(tmpdir);
}
END_TEST

/* The installed docs are complete: every .md file in the sources docs/ is
 * installed, and every relative link in an installed .md file (README.md's
 * docs/X.md, library.md's ../examples/sweep.c, ...) names an installed file. */
START_TEST(install_docs_are_complete_and_their_links_resolve)
{
  char doc[PATH_MAX * 2], *out;
  char *src = tu_source_path("docs");
  install();
  staged(doc, sizeof doc, "TSSIM_INSTALL_DATA", "doc/tssim");
  int rc = tu_sh(&out, "cd '%s' && for f in *.md; do [ -e '%s/docs/'\"$f\" ] || echo \"not installed: docs/$f\"; done",
                 src, doc);
  ck_assert_msg(rc == 0 && !strcmp(out, ""), "%s", out);
  free(out);
  rc = tu_sh(&out, "cd '%s' && find . -name '*.md' | while read -r f; do "
             "grep -oE '\\]\\([^)]+\\)' \"$f\" | sed -e 's/^](//' -e 's/)$//' -e 's/#.*//' "
             "| grep -vE '^(https?:|mailto:|$)' | while read -r l; do "
             "[ -e \"$(dirname \"$f\")/$l\" ] || echo \"$f links to $l, not installed\"; done; done",
             doc);
  ck_assert_msg(rc == 0 && !strcmp(out, ""), "%s", out);
  free(out);
  /* a link the check must see (so that it cannot pass by finding none) */
  rc = tu_sh(&out, "grep -c '](docs/explore.md)' '%s/README.md'", doc);
  ck_assert_msg(rc == 0, "%s", out);
  free(out);
  free(src);
  tu_rmtree(tmpdir);
}
END_TEST

/* The prefix change README.md and docs/library.md give, run as written on a
 * build folder that exists (the quick start's build/): it changes the
 * prefix, where `meson setup build --prefix` (what they gave before) says
 * "Directory already configured", exits 0 and keeps /usr/local; and the
 * root an install under /usr/local needs is said. */
#define PREFIX_CMD "meson configure build -Dprefix=$HOME/.local"
START_TEST(install_documented_prefix_change_takes_effect)
{
  static const char *const docs[] = {"README.md", "docs/library.md"};
  char *out;
  for (size_t i = 0; i < sizeof docs / sizeof *docs; i++) {
    char *path = tu_source_path(docs[i]), *text = tu_read_file(path, NULL);
    ck_assert_msg(strstr(text, "`" PREFIX_CMD), "%s does not give `%s`", docs[i], PREFIX_CMD);
    ck_assert_msg(strstr(text, "`sudo meson install -C build --no-rebuild`"), "%s: no word of root", docs[i]);
    ck_assert_msg(!strstr(text, "`meson setup build --prefix ~/.local` for"), "%s", docs[i]);
    free(text);
    free(path);
  }
  const char *meson = getenv("TSSIM_MESON");
  ck_assert_msg(meson != NULL, "TSSIM_MESON must be set (run the tests with meson test)");
  tu_mkdtemp(tmpdir, sizeof tmpdir, "install");
  /* the quick start's `meson setup build` (from the sources), then the old advice */
  int rc = tu_sh(&out, "cd '%s' && { '%s' setup '%s/build' >'%s/setup.log' 2>&1 || cat '%s/setup.log'; } && "
                 "'%s' setup '%s/build' --prefix '%s/else' && '%s' introspect '%s/build' --buildoptions",
                 tu_source_root(), meson, tmpdir, tmpdir, tmpdir, meson, tmpdir, tmpdir, meson, tmpdir);
  ck_assert_msg(rc == 0 && strstr(out, "Directory already configured") &&
                    strstr(out, "\"name\": \"prefix\", \"value\": \"/usr/local\""),
                "%s", out);
  free(out);
  rc = tu_sh(&out, "cd '%s' && mkdir home && export HOME=\"$PWD/home\" && PATH=\"$(dirname '%s'):$PATH\" && " PREFIX_CMD
             " && '%s' introspect build --buildoptions | grep -o '\"name\": \"prefix\", \"value\": \"[^\"]*\"'",
             tmpdir, meson, meson);
  ck_assert_msg(rc == 0, "%s", out);
  char want[PATH_MAX * 2];
  snprintf(want, sizeof want, "\"name\": \"prefix\", \"value\": \"%s/home/.local\"", tmpdir);
  ck_assert_msg(strstr(out, want), "%s", out);
  free(out);
  tu_rmtree(tmpdir);
}
END_TEST

Suite *install_suite(void)
{
  Suite *s = suite_create("install");
  TCase *tc = tcase_create("staged");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, install_staged_tssim_runs_from_another_folder);
  tcase_add_test(tc, install_man_page_reads_and_holds_the_help);
  tcase_add_test(tc, install_completions_know_commands_options_and_files);
  tcase_add_test(tc, install_example_builds_with_pkg_config);
  tcase_add_test(tc, install_docs_are_complete_and_their_links_resolve);
  tcase_add_test(tc, install_documented_prefix_change_takes_effect);
  suite_add_tcase(s, tc);
  return s;
}
