#!/usr/bin/env bash
# What bash completes for a command line, with the completion script rangetap generates, as
# bash's programmable completion would call it (complete -F _rangetap):
#
#   complete.sh SCRIPT WORD… ''     (the last word is the one being completed; '' for a new word)
#
# Prints one candidate a line.
shopt -s extglob progcomp
source "$1"; shift
COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
COMPREPLY=()
_rangetap "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
printf '%s\n' "${COMPREPLY[@]}"
