#!/bin/sh
# A consumer that ignores SIGTERM (its children inherit that).
trap '' TERM
while :; do sleep 0.05; done
