#!/bin/sh
# A consumer that ignores SIGTERM (its children inherit that). It says
# "ready" once the trap is set: a SIGTERM before that would end it.
trap '' TERM
echo ready
while :; do sleep 0.05; done
