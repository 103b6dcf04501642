#!/bin/sh
# A consumer whose descendant leaves its process group (setsid) holding
# its stdout and stderr, then runs until stopped. $1: where the
# descendant writes its pid, once out of the group.
setsid sh -c 'echo $$ > "$1"; exec sleep 30' sh "$1" &
exec sleep 60
