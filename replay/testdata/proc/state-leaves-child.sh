#!/bin/sh
# A state command that prints its state and exits, leaving a background
# child in its group that holds its stdout.
sleep 60 &
echo '{"n": 1}'
