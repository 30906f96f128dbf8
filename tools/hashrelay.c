/*
 * hashrelay.c — the least work a recording relay can do, as a baseline for tools/bench-proxy.sh
 * and tools/bench-ab.sh.
 *
 * A TCP relay like `socat -b 262144 TCP-LISTEN:P,fork TCP:127.0.0.1:U` (a process per connection,
 * 256 KiB reads) that also does what rangetap's capture writer does with every byte coming back
 * from upstream: a second thread takes the relayed buffers from a bounded queue and computes
 * their SHA-256 (OpenSSL's EVP, which uses the CPU's SHA extensions where it has them), and with
 * --bodies DIR also appends them to a file in DIR. The relay thread waits for a free buffer when
 * the hashing thread falls behind, as rangetap's upstream thread waits for its writer's backlog.
 *
 * No parsing, no events, no libcurl: on a given machine, no recording proxy that hashes every body
 * byte on its way through can be faster than this, so the benchmarks print rangetap's MB/s and
 * CPU against it as well as against socat.
 *
 * Build: cc -O2 -pthread -o hashrelay hashrelay.c -lcrypto
 * Usage: hashrelay LISTEN_PORT UPSTREAM_PORT [--bodies DIR]
 *   Listens on 127.0.0.1:LISTEN_PORT, relays each connection to 127.0.0.1:UPSTREAM_PORT.
 *   Each connection's child prints `sha256 HEX bytes N` to stderr when it ends.
 *   Exits on SIGTERM/SIGINT (children end with their connections).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/evp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define SLOT_SIZE (256 * 1024)
#define SLOTS 8 /* 2 MiB in flight, rangetap's backlog with bodies */

static int upstream_port;
static const char *bodies_dir;

struct slot { char *data; size_t len; };
static struct slot slots[SLOTS];
static unsigned head, tail; /* producer fills slots[head % SLOTS], consumer takes slots[tail % SLOTS] */
static int finished;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t filled = PTHREAD_COND_INITIALIZER, freed = PTHREAD_COND_INITIALIZER;

static void die(const char *what) { perror(what); exit(1); }

static void *consume(void *arg) {
    int out = *(int *)arg;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)) die("EVP_DigestInit_ex");
    unsigned long long total = 0;
    for (;;) {
        pthread_mutex_lock(&lock);
        while (tail == head && !finished) pthread_cond_wait(&filled, &lock);
        if (tail == head) { pthread_mutex_unlock(&lock); break; }
        struct slot s = slots[tail % SLOTS];
        pthread_mutex_unlock(&lock);
        EVP_DigestUpdate(ctx, s.data, s.len);
        for (size_t off = 0; out >= 0 && off < s.len;) {
            ssize_t n = write(out, s.data + off, s.len - off);
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) die("write body file");
            off += (size_t)n;
        }
        total += s.len;
        pthread_mutex_lock(&lock);
        tail++;
        pthread_cond_signal(&freed);
        pthread_mutex_unlock(&lock);
    }
    unsigned char md[32];
    unsigned int mdlen = 0;
    EVP_DigestFinal_ex(ctx, md, &mdlen);
    EVP_MD_CTX_free(ctx);
    fprintf(stderr, "sha256 ");
    for (unsigned i = 0; i < mdlen; i++) fprintf(stderr, "%02x", md[i]);
    fprintf(stderr, " bytes %llu\n", total);
    return NULL;
}

static int send_all(int fd, const char *p, size_t n) {
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) return -1;
        p += w; n -= (size_t)w;
    }
    return 0;
}

/* One connection: requests go upstream as they come; each upstream read goes to the client,
 * then to the hashing thread. */
static void serve(int client) {
    int up = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)upstream_port) };
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (up < 0 || connect(up, (struct sockaddr *)&a, sizeof a) < 0) die("connect upstream");
    int one = 1;
    setsockopt(up, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    int out = -1;
    if (bodies_dir) {
        char path[4096];
        snprintf(path, sizeof path, "%s/body-%d.bin", bodies_dir, (int)getpid());
        out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (out < 0) die("open body file");
    }
    for (int i = 0; i < SLOTS; i++)
        if (!(slots[i].data = malloc(SLOT_SIZE))) die("malloc");
    pthread_t consumer;
    if (pthread_create(&consumer, NULL, consume, &out) != 0) die("pthread_create");
    char request[SLOT_SIZE];
    struct pollfd fds[2] = { { .fd = client, .events = POLLIN }, { .fd = up, .events = POLLIN } };
    for (int open_fds = 2; open_fds > 0;) {
        if (poll(fds, 2, -1) < 0) { if (errno == EINTR) continue; die("poll"); }
        if (fds[0].revents) {
            ssize_t n = recv(client, request, sizeof request, 0);
            if (n <= 0) { shutdown(up, SHUT_WR); fds[0].fd = -1; open_fds--; }
            else if (send_all(up, request, (size_t)n) < 0) break;
        }
        if (fds[1].revents) {
            pthread_mutex_lock(&lock);
            while (head - tail == SLOTS) pthread_cond_wait(&freed, &lock);
            struct slot *s = &slots[head % SLOTS];
            pthread_mutex_unlock(&lock);
            ssize_t n = recv(up, s->data, SLOT_SIZE, 0);
            if (n <= 0) { shutdown(client, SHUT_WR); fds[1].fd = -1; open_fds--; continue; }
            if (send_all(client, s->data, (size_t)n) < 0) break;
            s->len = (size_t)n;
            pthread_mutex_lock(&lock);
            head++;
            pthread_cond_signal(&filled);
            pthread_mutex_unlock(&lock);
        }
    }
    pthread_mutex_lock(&lock);
    finished = 1;
    pthread_cond_signal(&filled);
    pthread_mutex_unlock(&lock);
    pthread_join(consumer, NULL);
    if (out >= 0) close(out);
    close(up);
    close(client);
}

static void reap(int sig) {
    (void)sig;
    int saved = errno;
    while (waitpid(-1, NULL, WNOHANG) > 0) {}
    errno = saved;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: hashrelay LISTEN_PORT UPSTREAM_PORT [--bodies DIR]\n");
        return 2;
    }
    int listen_port = atoi(argv[1]);
    upstream_port = atoi(argv[2]);
    for (int i = 3; i < argc; i++) {
        if (!strcmp(argv[i], "--bodies") && i + 1 < argc) bodies_dir = argv[++i];
        else { fprintf(stderr, "hashrelay: unknown argument %s\n", argv[i]); return 2; }
    }
    if (listen_port <= 0 || listen_port > 65535 || upstream_port <= 0 || upstream_port > 65535) {
        fprintf(stderr, "hashrelay: ports must be 1..65535\n");
        return 2;
    }
    /* Children are reaped (not left to the kernel with SIG_IGN), so that their CPU time is added
     * to this process's cutime/cstime, where the benchmarks read it (cpu_ticks, tools/bench-lib.sh). */
    struct sigaction sa = { .sa_handler = reap };
    sigemptyset(&sa.sa_mask);
    sigaction(SIGCHLD, &sa, NULL);
    int l = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)listen_port) };
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) < 0 || listen(l, 128) < 0) die("listen");
    for (;;) {
        int c = accept(l, NULL, NULL);
        if (c < 0) { if (errno == EINTR) continue; die("accept"); }
        pid_t pid = fork();
        if (pid < 0) die("fork");
        if (pid == 0) { close(l); serve(c); _exit(0); }
        close(c);
    }
}
