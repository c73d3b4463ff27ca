#!/usr/bin/env python3
"""Build tool, not part of tssim: writes the tssim(1) man page and the bash
and zsh completions from what the built tssim prints for --help, so neither
can disagree with the help.

usage: gendoc.py TSSIM MAN_PAGE BASH_COMPLETION ZSH_COMPLETION

The help texts share one shape, which this reads:
  - blocks separated by blank lines;
  - "usage: tssim ..." is a synopsis (indented lines continue it);
  - a block whose first line ends with ':' and whose other lines are indented
    is a list: a line indented 2 spaces, or starting with '-' within 6, opens
    an item ("TAG  description", two spaces or more between), deeper lines
    continue it;
  - any other block is a paragraph.
The top-level help lists the commands ("commands:"); each command's own
--help (when it starts with "usage:") gives its synopsis, text and options.
An option's value (the word after it) says what to complete: DIR a folder,
FILE a file, *.json a JSON file, anything else nothing (a number, a list).
"""
import re
import subprocess
import sys


def run_help(tssim, args):
    out = subprocess.run([tssim] + args + ["--help"], stdout=subprocess.PIPE, check=True)
    return out.stdout.decode("utf-8")


def blocks(text):
    """The blank-line-separated blocks of text, as lists of lines."""
    out, cur = [], []
    for line in text.rstrip("\n").split("\n"):
        if line.strip():
            cur.append(line.rstrip())
        elif cur:
            out.append(cur)
            cur = []
    if cur:
        out.append(cur)
    return out


def indent(line):
    return len(line) - len(line.lstrip(" "))


def parse_list(lines):
    """[(tag, description)] of a list block's item lines."""
    items = []
    for line in lines:
        n, body = indent(line), line.strip()
        if n == 2 or (body.startswith("-") and n <= 6):
            m = re.match(r"(\S.*?)(?: {2,}(\S.*))?$", body)
            items.append([m.group(1), m.group(2) or ""])
        elif items:
            items[-1][1] = (items[-1][1] + " " + body).strip()
    return [tuple(i) for i in items]


def parse(text):
    """[(kind, data)]: ("usage", line), ("list", (heading, items)), ("para", text)."""
    out = []
    for b in blocks(text):
        if b[0].startswith("usage: "):
            n = 1  # indented lines continue the usage
            while n < len(b) and indent(b[n]) > 0:
                n += 1
            out.append(("usage", " ".join(l.strip() for l in b[:n])[len("usage: "):]))
            if len(b) > n:
                out.append(("para", " ".join(l.strip() for l in b[n:])))
        elif b[0].endswith(":") and len(b) > 1 and all(indent(l) >= 2 for l in b[1:]):
            out.append(("list", (b[0][:-1], parse_list(b[1:]))))
        else:
            out.append(("para", " ".join(l.strip() for l in b)))
    return out


# ---- options ----

def options_of(items):
    """[(names, value)] of an "options" list: names like ["-o", "--output"],
    value the word after them ("DIR") or None."""
    opts = []
    for tag, desc in items:
        names, value = [], None
        for part in tag.split(", "):
            words = part.split()
            if words and words[0].startswith("-"):
                names.append(words[0])
                if len(words) > 1:
                    value = words[1]
        if names:
            opts.append((names, value, desc))
    return opts


def value_kind(value):
    """What completes an option's value or a positional argument: "dir",
    "json", "file" or None."""
    if value is None:
        return None
    v = value.rstrip(".")
    if v == "DIR":
        return "dir"
    if v.endswith(".json"):
        return "json"
    if v == "FILE":
        return "file"
    return None


class Command:
    def __init__(self, name, summary, help_text):
        self.name, self.summary = name, summary
        self.parsed = parse(help_text) if help_text.startswith("usage:") else []
        self.usage = next((d for k, d in self.parsed if k == "usage"), "tssim " + name)
        self.options = []
        for k, d in self.parsed:
            if k == "list" and d[0] == "options":
                self.options = options_of(d[1])
        # positional arguments: the usage's words after the command, up to the
        # first option ("-...") or optional part ("[...")
        self.positional = []
        for w in self.usage.split()[2:]:
            if w.startswith(("-", "[")):
                break
            self.positional.append(w)


# ---- the man page ----

def roff(text):
    """text escaped for roff, at the start of a line or not."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    if text[:1] in (".", "'"):
        text = "\\&" + text
    return text


def roff_tag(tag):
    """An option's tag: names bold, values italic."""
    out = []
    for part in tag.split(", "):
        words = part.split(" ", 1)
        if words[0].startswith("-"):
            s = "\\fB" + roff(words[0]) + "\\fR"
            if len(words) > 1:
                s += " \\fI" + roff(words[1]) + "\\fR"
            out.append(s)
        else:
            out.append(roff(part))
    return ", ".join(out)


def man_blocks(parsed, out):
    for kind, data in parsed:
        if kind == "para":
            out += [".PP", roff(data)]
        elif kind == "list":
            heading, items = data
            out += [".PP", roff(heading + ":")]
            for tag, desc in items:
                out += [".TP", roff_tag(tag), roff(desc) if desc else ""]


def man_page(version_line, top, commands):
    name, _, what = version_line.partition(" - ")
    version = name.split()[-1]
    out = ['.\\" Generated from tssim\'s --help by src/cli/gendoc.py: do not edit.',
           '.TH TSSIM 1 "" "tssim %s" "User Commands"' % version,
           ".nh", ".ad l",
           ".SH NAME", "tssim \\- " + roff(what),
           ".SH SYNOPSIS", ".nf"]
    for kind, data in top:
        if kind == "usage":
            out.append(roff(re.split(r" {2,}", data)[0]))
    for c in commands:
        out.append(roff(c.usage))
    out += [".fi", ".SH DESCRIPTION"]
    rest = []
    for kind, data in top:
        if kind == "usage":
            continue
        if kind == "list" and data[0] == "commands":
            out += [".PP", roff("commands:")]
            for c in commands:
                out += [".TP", "\\fB" + roff(c.name) + "\\fR", roff(c.summary)]
        elif kind == "list":
            rest.append((data[0].upper(), [(kind, data)]))
        elif kind == "para" and data.startswith("exit status: "):
            rest.append(("EXIT STATUS", [("para", data)]))
        elif kind == "para" and data.startswith("documentation: "):
            rest.append(("SEE ALSO", [("para", data)]))
        else:
            out += [".PP", roff(data)]
    for c in commands:
        if not c.parsed:
            continue
        out += [".SH " + '"' + roff("TSSIM " + c.name.upper()) + '"', ".nf", roff(c.usage), ".fi"]
        man_blocks([b for b in c.parsed if b[0] != "usage"], out)
    order = ["EXIT STATUS", "ENVIRONMENT", "SEE ALSO"]  # man-pages(7)'s order
    rest.sort(key=lambda r: order.index(r[0]) if r[0] in order else len(order))
    for title, parsed in rest:
        out.append('.SH "%s"' % title)
        if parsed[0][0] == "list":  # the heading is the section's title
            for tag, desc in parsed[0][1][1]:
                out += [".TP", "\\fB" + roff(tag) + "\\fR", roff(desc)]
        else:
            man_blocks(parsed, out)
    return "\n".join(out) + "\n"


# ---- completions ----

def bash_completion(commands):
    out = ["# bash completion for tssim. Generated from tssim's --help by src/cli/gendoc.py: do not edit.",
           "",
           "# _tssim_files KIND: complete the current word as KIND (dir, json, file; else nothing).",
           "_tssim_files() {",
           '  local cur=$1',
           '  case $2 in',
           '    dir) compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -d -- "$cur") ;;',
           '    json) compopt -o filenames 2>/dev/null',
           '      mapfile -t COMPREPLY < <(compgen -d -- "$cur"; compgen -f -X \'!*.json\' -- "$cur") ;;',
           '    file) compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;',
           '    *) COMPREPLY=() ;;',
           '  esac',
           "}",
           "",
           "_tssim() {",
           '  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} opt=',
           '  if [ "$COMP_CWORD" -eq 1 ]; then',
           '    mapfile -t COMPREPLY < <(compgen -W "%s --help --version" -- "$cur")'
           % " ".join(c.name for c in commands),
           '    return',
           '  fi',
           '  # --option=value: the value of the option before the "="',
           '  if [ "$prev" = "=" ] && [ "$COMP_CWORD" -ge 3 ]; then opt=${COMP_WORDS[COMP_CWORD-2]};',
           '  elif [ "$cur" = "=" ]; then opt=$prev; cur=;',
           '  else opt=$prev; fi',
           '  local opts= valued= kind= pos=',
           '  case ${COMP_WORDS[1]} in']
    for c in commands:
        if not c.parsed:
            continue
        names = [n for o in c.options for n in o[0]]
        valued = [n for o in c.options if o[1] for n in o[0]]
        out.append("    %s)" % c.name)
        out.append('      opts="%s"' % " ".join(names))
        out.append('      valued=" %s "' % " ".join(valued))
        kinds = {}
        for names_, value, _ in c.options:
            k = value_kind(value)
            if k:
                kinds.setdefault(k, []).extend(names_)
        if kinds:
            out.append('      case $opt in')
            for k, ns in kinds.items():
                out.append('        %s) kind=%s ;;' % ("|".join(ns), k))
            out.append('      esac')
        pos = value_kind(c.positional[0]) if c.positional else None
        out.append('      pos=%s ;;' % (pos or ""))
    out += ['    *) return ;;',
            '  esac',
            '  case $valued in *" $opt "*) _tssim_files "$cur" "$kind"; return ;; esac',
            '  if [[ $cur == -* ]]; then',
            '    mapfile -t COMPREPLY < <(compgen -W "$opts" -- "$cur")',
            '    return',
            '  fi',
            '  _tssim_files "$cur" "$pos"',
            "}",
            "complete -F _tssim tssim", ""]
    return "\n".join(out)


def zsh_quote(text, escape=True):
    """text as a zsh completion description: its first clause, at most 72
    characters, with brackets and colons escaped (for _arguments)."""
    text = text.split("; ")[0]
    if len(text) > 72:
        text = text[:69].rsplit(" ", 1)[0] + "..."
    return re.sub(r"([\[\]:\\])", r"\\\1", text) if escape else text


ZSH_ACTION = {"dir": "_files -/", "json": "_files -g '*.json(-.)'", "file": "_files", None: " "}


def zsh_completion(commands):
    out = ["#compdef tssim",
           "# zsh completion for tssim. Generated from tssim's --help by src/cli/gendoc.py: do not edit.",
           "",
           "_tssim() {",
           "  local -a commands",
           "  commands=("]
    for c in commands:
        out.append("    " + sh_quote("%s:%s" % (c.name, zsh_quote(c.summary, False))))
    out += ["  )",
            "  if (( CURRENT == 2 )); then",
            "    _describe -t commands 'tssim command' commands",
            "    return",
            "  fi",
            "  local cmd=$words[2]",
            "  shift words",
            "  (( CURRENT-- ))",
            "  case $cmd in"]
    for c in commands:
        if not c.parsed:
            continue
        specs = []
        for names, value, desc in c.options:
            excl = "(%s)" % " ".join(names) if len(names) > 1 else ""
            d = zsh_quote(desc)
            for n in names:
                suffix = ("=" if n.startswith("--") else "+") if value else ""
                repeat = "*" if "repeatable" in desc else ""
                spec = "%s%s%s[%s]" % (excl if not repeat else "", repeat, n + suffix, d)
                if value:
                    spec += ":%s:%s" % (zsh_quote(value.lower()), ZSH_ACTION[value_kind(value)])
                specs.append(spec)
        if c.positional:
            first = c.positional[0]
            many = "*" if first.endswith("...") else "1"
            specs.append("%s:%s:%s" % (many, zsh_quote(first.lower().rstrip(".")), ZSH_ACTION[value_kind(first)]))
            for i, p in enumerate(c.positional[1:], 2):
                specs.append("%d:%s:%s" % (i, zsh_quote(p.lower()), ZSH_ACTION[value_kind(p)]))
        out.append("    %s)" % c.name)
        out.append("      _arguments -s -S \\")
        for s in specs:
            out.append("        %s \\" % sh_quote(s))
        out[-1] = out[-1][:-2]
        out.append("      ;;")
    out += ["  esac", "}", "", '_tssim "$@"', ""]
    return "\n".join(out)


def sh_quote(s):
    return "'" + s.replace("'", "'\\''") + "'"


def main(argv):
    if len(argv) != 5:
        sys.stderr.write("usage: gendoc.py TSSIM MAN_PAGE BASH_COMPLETION ZSH_COMPLETION\n")
        return 2
    tssim = argv[1]
    text = run_help(tssim, [])
    version_line = text.split("\n", 1)[0]
    top = parse(text.split("\n", 1)[1])
    commands = []
    for kind, data in top:
        if kind == "list" and data[0] == "commands":
            for name, summary in data[1]:
                commands.append(Command(name, summary, run_help(tssim, [name])))
    if not commands:
        sys.stderr.write("gendoc.py: %s --help lists no commands\n" % tssim)
        return 1
    for path, text in ((argv[2], man_page(version_line, top, commands)),
                       (argv[3], bash_completion(commands)), (argv[4], zsh_completion(commands))):
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
