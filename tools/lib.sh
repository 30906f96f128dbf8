# Shared helpers for the scripts in tools/ (source it). Everything on 127.0.0.1.

# A free TCP port on 127.0.0.1.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

# Waits (at most 10 s) until something accepts connections on 127.0.0.1:PORT.
wait_port() { for _ in $(seq 1 200); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.05; done; echo "nothing listens on $1" >&2; return 1; }

# write_nginx_conf DIR PORT ROOT [EXTRA_SERVER_DIRECTIVES]: a foreground, single-process nginx
# config in DIR serving ROOT on 127.0.0.1:PORT, logs and temp files in DIR. Start it with
#   nginx -c DIR/nginx.conf -p DIR -e DIR/error.log &
write_nginx_conf() {
  local dir=$1 port=$2 www=$3 extra=${4:-}
  mkdir -p "$dir"
  cat > "$dir/nginx.conf" <<CONF
daemon off; master_process off; pid $dir/nginx.pid; error_log $dir/error.log;
events { worker_connections 256; }
http {
  access_log $dir/access.log;
  client_body_temp_path $dir; proxy_temp_path $dir; fastcgi_temp_path $dir; uwsgi_temp_path $dir; scgi_temp_path $dir;
  types { video/mp4 mp4; }
  server { listen 127.0.0.1:$port; root $www; $extra }
}
CONF
}

# valgrind_prepare BIN DIR: what valgrind 3.19 (Debian 12) needs to run BIN, made in DIR (needs
# objcopy and cc): DIR/rangetap, a copy without debug sections (valgrind 3.19 cannot read their
# DWARF 5 parts: "unhandled dwarf2 abbrev form code 0x25", then it gives up; the symbol table
# stays, so functions keep their names), and DIR/sigsuspend-copy.so, to LD_PRELOAD under valgrind
# (valgrind 3.19 writes into the mask passed to sigsuspend(2), which libdispatch keeps in
# read-only memory: without it valgrind can die with SIGSEGV at start-up). Returns non-zero when
# either cannot be made.
valgrind_prepare() {
  cat >"$2/sigsuspend-copy.c" <<'C'
#define _GNU_SOURCE
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>
/* sigsuspend on a copy of the mask: valgrind 3.19 writes into the caller's mask. */
int sigsuspend(const sigset_t *mask) { sigset_t copy = *mask; return (int)syscall(SYS_rt_sigsuspend, &copy, 8); }
C
  cc -O2 -shared -fPIC -o "$2/sigsuspend-copy.so" "$2/sigsuspend-copy.c" && objcopy --strip-debug "$1" "$2/rangetap"
}
