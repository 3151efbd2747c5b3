#!/bin/sh
# Prints the greeting of templates/hello.txt for $1, and where it ran.
set -eu
sed "s/NAME/$1/" "$MOTEUR_SKILL_DIR/templates/hello.txt"
echo "letters: ${#1}"
echo "cwd: $(pwd)"
