#!/usr/bin/env bash
# Renders the test variant of Deploy/nginx.conf: the same file with only the certificate paths,
# the listen port, the upstream address and the pid, log and temp paths swapped, so that nginx
# can run under a temporary prefix in front of keychaind on 127.0.0.1: one, or several replicas
# (UPSTREAM_PORT a comma-separated list of ports, one upstream server line each).
#
# usage: render-nginx-test.sh IN OUT PORT_TLS UPSTREAM_PORT[,UPSTREAM_PORT...] CERT KEY PREFIXDIR
#
# Every swap must hit exactly one line: when nginx.conf changes shape, this fails loudly
# rather than testing a different configuration than the one we ship.
set -euo pipefail

if [[ $# -ne 7 ]]; then
    echo "usage: $0 IN OUT PORT_TLS UPSTREAM_PORT CERT KEY PREFIXDIR" >&2
    exit 2
fi
in=$1 out=$2 port_tls=$3 upstream_port=$4 cert=$5 key=$6 prefix=$7

IFS=, read -r -a upstream_ports <<<"$upstream_port"
for n in "$port_tls" "${upstream_ports[@]}"; do
    [[ $n =~ ^[0-9]+$ ]] || { echo "render-nginx-test: not a port: $n" >&2; exit 2; }
done
for p in "$cert" "$key" "$prefix"; do
    # The values go into sed replacements and nginx directives: keep them plain paths.
    [[ $p =~ ^/[A-Za-z0-9._/-]+$ ]] || { echo "render-nginx-test: not a plain absolute path: $p" >&2; exit 2; }
done

# The upstream's server lines, one per port, joined for a sed replacement (a newline and the
# line's indentation between them).
upstream_lines() {
    local port lines=()
    for port in "${upstream_ports[@]}"; do lines+=("server 127.0.0.1:$port max_fails=1 fail_timeout=1s;"); done
    local IFS=$'\x1f'
    echo "${lines[*]}"
}

# pattern|replacement pairs, each matching one whole line of nginx.conf (leading spaces kept).
swaps=(
    "pid /run/nginx.pid;|pid $prefix/nginx.pid;"
    "error_log /var/log/nginx/error.log warn;|error_log $prefix/error.log warn;"
    "access_log /var/log/nginx/access.log keychaind;|access_log $prefix/access.log keychaind;"
    "client_body_temp_path /var/cache/nginx/client_temp;|client_body_temp_path $prefix/tmp/client_temp;"
    "proxy_temp_path /var/cache/nginx/proxy_temp;|proxy_temp_path $prefix/tmp/proxy_temp;"
    "fastcgi_temp_path /var/cache/nginx/fastcgi_temp;|fastcgi_temp_path $prefix/tmp/fastcgi_temp;"
    "uwsgi_temp_path /var/cache/nginx/uwsgi_temp;|uwsgi_temp_path $prefix/tmp/uwsgi_temp;"
    "scgi_temp_path /var/cache/nginx/scgi_temp;|scgi_temp_path $prefix/tmp/scgi_temp;"
    "server keychaind:8700 max_fails=1 fail_timeout=1s;|$(upstream_lines)"
    "listen 8443 ssl;|listen 127.0.0.1:$port_tls ssl;"
    "ssl_certificate /etc/nginx/tls/tls.crt;|ssl_certificate $cert;"
    "ssl_certificate_key /etc/nginx/tls/tls.key;|ssl_certificate_key $key;"
)

sed_args=()
for swap in "${swaps[@]}"; do
    from=${swap%%|*} to=${swap#*|}
    count=$(sed 's/^[[:space:]]*//' "$in" | grep -cxF -- "$from" || true)
    if [[ $count -ne 1 ]]; then
        echo "render-nginx-test: expected exactly one line '$from' in $in, found $count" >&2
        exit 1
    fi
    # Escape for a sed BRE (from) and replacement (to); '#' never occurs in these values.
    from_re=$(printf '%s' "$from" | sed 's/[][\\.*^$]/\\&/g')
    to_re=$(printf '%s' "$to" | sed 's/[\\&]/\\&/g' | sed 's/\x1f/\\n\\1/g')
    sed_args+=(-e "s#^\\([[:space:]]*\\)$from_re\$#\\1$to_re#")
done

mkdir -p "$prefix/tmp"
sed "${sed_args[@]}" "$in" >"$out"
