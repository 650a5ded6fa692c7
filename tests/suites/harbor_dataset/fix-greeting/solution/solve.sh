#!/bin/bash
sed -i 's/"\$2"/"$1"/' greet.sh
