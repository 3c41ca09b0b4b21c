#!/bin/sh
# The handler of login.submit in README's worked example, run by
#   propctl serve login.submit -- ./examples/check-password.sh
# once per execution. propctl hands it the argument as JSON on stdin and the
# command's name in $PROPD_COMMAND; what it prints is the result (JSON when it
# parses), and a non-zero exit fails the execution with what it wrote to stderr.
set -eu
input=$(cat)
account=$(printf '%s' "$input" | python3 -c 'import json, sys; print(json.load(sys.stdin)["account"])')
password=$(printf '%s' "$input" | python3 -c 'import json, sys; print(json.load(sys.stdin)["password"])')
# A real handler would ask an account service; this one knows one account.
if [ "$account" = "ada.lovelace" ] && [ "$password" = "analytical" ]; then
    printf '{"account": "%s", "session": "%s"}\n' "$account" "$(date +%s)"
else
    echo "wrong account or password" >&2
    exit 1
fi
