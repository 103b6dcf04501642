#!/bin/sh
# A process that exits at once, leaving a child in its process group that
# holds its stdout and stderr. $1: where to write the child's pid.
sleep 60 &
echo $! > "$1"
echo done
