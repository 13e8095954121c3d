#!/usr/bin/env python3
"""Writes healthtrail(1), the man page, from the command-line parser itself.

Usage: Tools/manpage.py BINARY > healthtrail.1

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


def page(tool, version):
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
    out += [".SH SEE ALSO",
            "\\fB%s help\\fR \\fIcommand\\fR, and the README and docs/ of the source distribution." % name]
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: Tools/manpage.py BINARY > healthtrail.1")
    binary = sys.argv[1]
    tool = json.loads(subprocess.run([binary, "--experimental-dump-help"], check=True, capture_output=True).stdout)
    version = subprocess.run([binary, "--version"], check=True, capture_output=True, text=True).stdout.strip()
    sys.stdout.write(page(tool, version))


if __name__ == "__main__":
    main()
