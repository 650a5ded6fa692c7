#!/bin/bash
# Prints the greeting of /etc/greeting-format for the name given as the first argument.
printf "$(cat /etc/greeting-format)" "$2"
