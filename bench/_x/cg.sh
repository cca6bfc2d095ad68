#!/bin/bash
v=$1; n=$2
r=$(V=$v N=$n valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null node --single-threaded var.mjs 2>&1 | grep -E "I\s+refs" | awk '{print $NF}' | tr -d ,)
echo "$v $n $r"
