#!/bin/sh
# A state command whose background child holds its stdout, and that never
# finishes.
sleep 60 &
sleep 60
