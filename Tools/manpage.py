#!/usr/bin/env python3
"""Writes healthtrail(1), the man page, from the command-line parser itself.

Usage: Tools/manpage.py BINARY [EXAMPLEDIR] > healthtrail.1

EXAMPLEDIR is where `make install` puts the example pipelines (FILES names it).

The text comes from `BINARY --experimental-dump-help`: swift-argument-parser's description of
every command, argument and option (the same data its generate-manual plugin reads), so the man
page says what `--help` says and cannot drift from it. Commands hidden from `--help` (developer
tools such as dp-sample) are left out here too.
"""
import json
import subprocess
import sys


def roff(text):
    """Escapes text for roff: backslashes, and a dot or quote that would start a request."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return "\n".join(("\\&" + line) if line.startswith((".", "'")) else line for line in text.split("\n"))


def paragraphs(text):
    """The discussion as roff: indented blocks (examples) kept as they are, the rest filled."""
    out = []
    for block in text.strip().split("\n\n"):
        lines = block.split("\n")
        plain = [line for line in lines if not line.startswith("  ")]
        indented = [line for line in lines if line.startswith("  ")]
        out.append(".PP")
        if plain:
            out.append(roff(" ".join(line.strip() for line in plain)))
        if indented:
            out += [".RS 4", ".nf"] + [roff(line.strip()) for line in indented] + [".fi", ".RE"]
    return out


def names(argument):
    """`-o, --out` in bold."""
    shown = []
    for name in argument.get("names", []):
        dash = "-" if name["kind"] in ("short", "longWithSingleDash") else "--"
        shown.append("\\fB" + roff(dash + name["name"]) + "\\fR")
    return ", ".join(shown)


def synopsis(path, command):
    parts = ["\\fB" + roff(" ".join(path)) + "\\fR"]
    for argument in command.get("arguments", []):
        if not argument.get("shouldDisplay", True):
            continue
        value = "\\fI" + roff(argument.get("valueName", "value")) + "\\fR"
        if argument["kind"] == "positional":
            text = value + ("..." if argument.get("isRepeating") else "")
        else:
            name = argument.get("preferredName") or argument["names"][0]
            dash = "-" if name["kind"] in ("short", "longWithSingleDash") else "--"
            text = "\\fB" + roff(dash + name["name"]) + "\\fR"
            if argument["kind"] == "option":
                text += " " + value
        parts.append("[" + text + "]" if argument.get("isOptional") else text)
    return parts


def arguments(command):
    out = []
    for argument in command.get("arguments", []):
        if not argument.get("shouldDisplay", True):
            continue
        label = names(argument)
        value = "\\fI" + roff(argument.get("valueName", "value")) + "\\fR"
        if argument["kind"] == "positional":
            label = value
        elif argument["kind"] == "option":
            label += " " + value
        out += [".TP", label]
        text = argument.get("abstract", "")
        if argument.get("defaultValue") and "(default" not in text:
            text += " (default: " + argument["defaultValue"] + ")"
        out.append(roff(text))
        if argument.get("discussion"):
            out += paragraphs(argument["discussion"] if isinstance(argument["discussion"], str) else "")
    return out


# The exit codes: ExitStatus in Sources/healthtrail/EntryPoint.swift, and 128 + the signal
# (Interruption.swift). UserCommandLineTests checks that this list has every code ExitStatus
# declares.
EXIT_STATUS = [
    ("0", "Success (a pipeline that publishes DP releases also when nothing was new)."),
    ("1", "The input or the output failed: one line on stderr names the file, the archive entry and the line; "
          "no output was replaced. Also a release refused by the budget ledger."),
    ("2", "Usage error, or an invalid pipeline file (every mistake listed as file:line:column: message)."),
    ("3", "Nothing new: this archive was already processed into this folder with the same content, tool "
          "version and options; nothing was touched."),
    ("4", "Another healthtrail run is writing this output folder."),
    ("130, 143", "Stopped by SIGINT or SIGTERM (128 + the signal); the previous outputs were kept."),
]


def files(exampledir):
    """What a run reads and writes beside its arguments, and where the examples are."""
    entries = [
        ("\\fIDIR\\fR/manifest.json",
         "What a run read and wrote: counts, sources, faults, timings, every output file with its rows; "
         "the next run's evidence of what is its own. healthtrail run \\-\\-help lists every output file."),
        ("\\fIDIR\\fR/.healthtrail.lock", "The lock one run at a time holds on its output folder."),
        ("\\fIDIR\\fR/.staging\\-\\fIpid\\fR/, \\fIDIR\\fR/.commit\\-\\fIpid\\fR",
         "A running (or killed) run's staged outputs and commit journal; the next run finishes or removes them."),
        ("$XDG_STATE_HOME/healthtrail/ (default ~/.local/state/healthtrail/)",
         "The budget folder: the DP budget ledgers and the key they are bound to (\\-\\-budget\\-dir, privacy.budget_dir)."),
        (roff(exampledir) + "/",
         "The example pipelines: nightly.yaml, cohort.yaml, releases.yaml and their README.md "
         "(pipelines/ in the source distribution)."),
    ]
    out = [".SH FILES"]
    for name, text in entries:
        out += [".TP", name, text]
    return out


def page(tool, version, exampledir):
    root = tool["command"]
    name = root["commandName"]
    out = [
        '.TH "%s" "1" "" "%s %s" "User Commands"' % (name.upper(), name, version),
        ".SH NAME",
        "%s \\- %s" % (name, roff(root.get("abstract", ""))),
        ".SH SYNOPSIS",
        ".B %s" % name,
        "\\fIcommand\\fR [\\fIoptions\\fR]",
        ".SH DESCRIPTION",
    ]
    out += paragraphs(root.get("discussion", ""))
    out += [".SH OPTIONS"] + arguments(root)
    out.append(".SH COMMANDS")
    for command in root.get("subcommands", []):
        if not command.get("shouldDisplay", True) or command["commandName"] == "help":
            continue
        out += [".SS %s" % roff(command["commandName"]), ".PP"]
        out.append(" ".join(synopsis([name, command["commandName"]], command)))
        out += [".PP", roff(command.get("abstract", ""))]
        out += paragraphs(command.get("discussion", ""))
        out += arguments(command)
    out += [".SH EXIT STATUS"]
    for code, text in EXIT_STATUS:
        out += [".TP", "\\fB%s\\fR" % code, roff(text)]
    out += files(exampledir)
    out += [".SH SEE ALSO",
            "\\fB%s help\\fR \\fIcommand\\fR, and the README and docs/ of the source distribution." % name]
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: Tools/manpage.py BINARY [EXAMPLEDIR] > healthtrail.1")
    binary = sys.argv[1]
    exampledir = sys.argv[2] if len(sys.argv) == 3 else "/usr/local/share/healthtrail/examples"
    tool = json.loads(subprocess.run([binary, "--experimental-dump-help"], check=True, capture_output=True).stdout)
    version = subprocess.run([binary, "--version"], check=True, capture_output=True, text=True).stdout.strip()
    sys.stdout.write(page(tool, version, exampledir))


if __name__ == "__main__":
    main()
