#!/bin/sh
# swift-format over every Swift file of the checkout, with the settings in .swift-format.
#
#   Tools/format.sh apply   rewrites the files in place (`make format`)
#   Tools/format.sh check   changes nothing; fails, naming the files, when `apply` would change any,
#                           then when `swift format lint` finds a rule broken (`make format-check`)
#
# The files are every *.swift outside hidden folders (.build, .build-test, .fuzz, .git, ...), so
# folders added or moved need no change here. SWIFT_FORMAT is the command (default: the
# toolchain's `swift format`). Different swift-format versions can format the same code
# differently: format with the toolchain the check runs with.
set -eu

cd "$(dirname "$0")/.."
SWIFT_FORMAT=${SWIFT_FORMAT:-swift format}
CONFIG=$(pwd)/.swift-format

usage() {
    echo "usage: $0 apply|check" >&2
    exit 2
}
[ $# -eq 1 ] || usage

if ! version=$($SWIFT_FORMAT --version 2>/dev/null); then
    echo "error: '$SWIFT_FORMAT' cannot be run. swift-format ships with the Swift toolchain (6.0 and" >&2
    echo "later, as 'swift format'); install a toolchain that has usr/bin/swift-format, or point" >&2
    echo "SWIFT_FORMAT at a swift-format binary of the same version: make format SWIFT_FORMAT=/path/to/swift-format" >&2
    exit 2
fi

swift_files() {
    find . -name '.?*' -type d -prune -o -name '*.swift' -type f -print0
}

case $1 in
apply)
    swift_files | xargs -0 -r $SWIFT_FORMAT format --configuration "$CONFIG" --in-place --parallel
    ;;
check)
    scratch=$(mktemp -d)
    trap 'rm -rf "$scratch"' EXIT
    # Formats a copy and compares: `swift format lint` alone misses some of what `format` changes
    # (the blank line OrderedImports puts between import groups).
    swift_files | tar --null -T - -cf - | tar -xf - -C "$scratch"
    (cd "$scratch" && swift_files | xargs -0 -r $SWIFT_FORMAT format --configuration "$CONFIG" --in-place --parallel)
    unformatted=$(swift_files | tr '\0' '\n' | sed 's|^\./||' | sort | while IFS= read -r f; do
        cmp -s "$f" "$scratch/$f" || echo "$f"
    done)
    if [ -n "$unformatted" ]; then
        echo "error: these Swift files are not formatted as .swift-format says (swift-format $version):" >&2
        echo "$unformatted" | sed 's/^/  /' >&2
        echo "Run 'make format' to format them, and commit the result." >&2
        exit 1
    fi
    # What formatting cannot fix: the lint-only rules (naming, ...). Every file is formatted here.
    if ! swift_files | xargs -0 -r $SWIFT_FORMAT lint --configuration "$CONFIG" --strict --parallel; then
        echo "error: swift format lint found the problems above, which 'make format' cannot fix: fix them by hand." >&2
        exit 1
    fi
    echo "format-check: every Swift file is formatted (swift-format $version)"
    ;;
*)
    usage
    ;;
esac
