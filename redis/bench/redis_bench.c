/*
 * redis_bench.c — a pipelined load generator for the commands redis-benchmark
 * cannot express: binary 64-bit key blobs (BFX.MADD64/MEXISTS64), batches of
 * distinct items (a 10^7-item fill), and Redisson's SETBIT/GETBIT Bloom
 * filter (k bit commands per item at positions from double hashing).
 *
 *   bloomsimd-redis-bench --port P --cmd NAME [--key K] [--batch N] [--items TOTAL]
 *                         [--clients C] [--pipeline D] [--start S] [--bits M --k K]
 *
 * One thread, C non-blocking connections to 127.0.0.1, each keeping D
 * commands in flight (as redis-benchmark -c C -P D). Items are numbered
 * S, S+1, ...: every item is distinct, so an insert run of TOTAL items puts
 * TOTAL distinct keys in. A lookup run with --start past the inserted range
 * measures absent keys (and reports the hit fraction: the FPR).
 * Prints one line: "<cmd> batch=N items=... seconds=... req/s=... items/s=... hits=..."
 * Exits non-zero on an error reply or a closed connection.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

typedef enum { C_PING, C_BF_ADD, C_BF_EXISTS, C_BF_MADD, C_BF_MEXISTS, C_MADD64, C_MEXISTS64, C_SADD, C_SISMEMBER,
               C_SMISMEMBER, C_SETBIT, C_GETBIT } cmd_kind;

static const struct { const char *name, *wire; cmd_kind kind; int multi; } commands[] = {
    {"ping", "PING", C_PING, 0},           {"bf.add", "BF.ADD", C_BF_ADD, 0},
    {"bf.exists", "BF.EXISTS", C_BF_EXISTS, 0}, {"bf.madd", "BF.MADD", C_BF_MADD, 1},
    {"bf.mexists", "BF.MEXISTS", C_BF_MEXISTS, 1}, {"bfx.madd64", "BFX.MADD64", C_MADD64, 1},
    {"bfx.mexists64", "BFX.MEXISTS64", C_MEXISTS64, 1}, {"sadd", "SADD", C_SADD, 1},
    {"sismember", "SISMEMBER", C_SISMEMBER, 0}, {"smismember", "SMISMEMBER", C_SMISMEMBER, 1},
    {"setbit", "SETBIT", C_SETBIT, 0},     {"getbit", "GETBIT", C_GETBIT, 0},
};

static struct {
    int port, clients, pipeline, k;
    size_t batch;
    uint64_t items, start, bits;
    const char *key;
    int ci; /* index into commands */
} opt = {6379, 4, 16, 7, 1, 1000000, 0, 0, "bf", 0};

/* The item number -> its 64-bit key (a bijection, so distinct numbers stay distinct). */
static uint64_t mix(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

typedef struct {
    char *p;
    size_t len, cap;
} buf;

static void put(buf *b, const void *s, size_t n) {
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2 + 4096;
        b->p = realloc(b->p, b->cap);
        if (!b->p) { perror("realloc"); exit(2); }
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
}
static void put_bulk(buf *b, const void *s, size_t n) {
    char h[32];
    int m = snprintf(h, sizeof h, "$%zu\r\n", n);
    put(b, h, (size_t)m);
    put(b, s, n);
    put(b, "\r\n", 2);
}
static void put_str(buf *b, const char *s) { put_bulk(b, s, strlen(s)); }
static void put_u64_text(buf *b, uint64_t v) {
    char t[24];
    int n = snprintf(t, sizeof t, "%llu", (unsigned long long)v);
    put_bulk(b, t, (size_t)n);
}
static void put_array(buf *b, size_t n) {
    char h[32];
    int m = snprintf(h, sizeof h, "*%zu\r\n", n);
    put(b, h, (size_t)m);
}

/* Appends the command(s) for items [first, first+count) and returns how many
 * commands were appended (SETBIT/GETBIT: k per item, Redisson's layout). */
static size_t build(buf *b, uint64_t first, size_t count) {
    cmd_kind kind = commands[opt.ci].kind;
    const char *wire = commands[opt.ci].wire;
    if (kind == C_PING) {
        put_array(b, 1), put_str(b, wire);
        return 1;
    }
    if (kind == C_SETBIT || kind == C_GETBIT) {
        size_t cmds = 0;
        for (size_t i = 0; i < count; i++) {
            uint64_t h = mix(first + i), h1 = (uint32_t)h, h2 = h >> 32;
            for (int j = 0; j < opt.k; j++) {
                put_array(b, kind == C_SETBIT ? 4 : 3), put_str(b, wire), put_str(b, opt.key);
                put_u64_text(b, (h1 + (uint64_t)j * h2) % opt.bits);
                if (kind == C_SETBIT) put_str(b, "1");
                cmds++;
            }
        }
        return cmds;
    }
    if (kind == C_MADD64 || kind == C_MEXISTS64) {
        put_array(b, 3), put_str(b, wire), put_str(b, opt.key);
        char h[32];
        int m = snprintf(h, sizeof h, "$%zu\r\n", count * 8);
        put(b, h, (size_t)m);
        for (size_t i = 0; i < count; i++) {
            uint64_t v = mix(first + i); /* little-endian host */
            put(b, &v, 8);
        }
        put(b, "\r\n", 2);
        return 1;
    }
    put_array(b, 2 + count), put_str(b, wire), put_str(b, opt.key);
    for (size_t i = 0; i < count; i++) put_u64_text(b, mix(first + i));
    return 1;
}

/* Length of one complete reply at p[0..n), or 0 if incomplete. Counts
 * integer 1s and set bitmap bits into *hits. Exits on an error reply. */
static size_t parse(const char *p, size_t n, uint64_t *hits) {
    const char *nl = memchr(p, '\n', n);
    if (!nl) return 0;
    size_t head = (size_t)(nl - p) + 1;
    switch (p[0]) {
    case '+':
        return head;
    case ':':
        *hits += strtoll(p + 1, NULL, 10) == 1;
        return head;
    case '-':
        fprintf(stderr, "error reply: %.*s\n", (int)head, p);
        exit(1);
    case '$': {
        long long len = strtoll(p + 1, NULL, 10);
        if (len < 0) return head;
        if (n < head + (size_t)len + 2) return 0;
        for (long long i = 0; i < len; i++) *hits += (uint64_t)__builtin_popcount((unsigned char)p[head + i]);
        return head + (size_t)len + 2;
    }
    case '*': {
        long long cnt = strtoll(p + 1, NULL, 10);
        size_t at = head;
        for (long long i = 0; i < cnt; i++) {
            size_t m = parse(p + at, n - at, hits);
            if (!m) return 0;
            at += m;
        }
        return at;
    }
    default:
        fprintf(stderr, "unexpected reply byte %d\n", p[0]);
        exit(1);
    }
}

typedef struct {
    int fd;
    buf out, in;
    size_t sent, awaiting;
} conn;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *a = argv[i], *v = argv[i + 1];
        if (!strcmp(a, "--port")) opt.port = atoi(v);
        else if (!strcmp(a, "--clients")) opt.clients = atoi(v);
        else if (!strcmp(a, "--pipeline")) opt.pipeline = atoi(v);
        else if (!strcmp(a, "--batch")) opt.batch = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--items")) opt.items = (uint64_t)strtod(v, NULL);
        else if (!strcmp(a, "--start")) opt.start = (uint64_t)strtod(v, NULL);
        else if (!strcmp(a, "--bits")) opt.bits = (uint64_t)strtod(v, NULL);
        else if (!strcmp(a, "--k")) opt.k = atoi(v);
        else if (!strcmp(a, "--key")) opt.key = v;
        else if (!strcmp(a, "--cmd")) {
            size_t j = 0;
            while (j < sizeof commands / sizeof commands[0] && strcmp(commands[j].name, v)) j++;
            if (j == sizeof commands / sizeof commands[0]) { fprintf(stderr, "unknown --cmd %s\n", v); return 2; }
            opt.ci = (int)j;
        } else { fprintf(stderr, "unknown option %s (see the comment at the top of redis_bench.c)\n", a); return 2; }
    }
    if (!commands[opt.ci].multi) opt.batch = 1;
    cmd_kind kind = commands[opt.ci].kind;
    if ((kind == C_SETBIT || kind == C_GETBIT) && !opt.bits) { fprintf(stderr, "--bits required\n"); return 2; }
    if (opt.clients < 1 || opt.pipeline < 1 || opt.batch < 1) return 2;

    conn *c = calloc((size_t)opt.clients, sizeof *c);
    struct pollfd *pfd = calloc((size_t)opt.clients, sizeof *pfd);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)opt.port)};
    inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr); /* loopback only, by construction */
    for (int i = 0; i < opt.clients; i++) {
        c[i].fd = socket(AF_INET, SOCK_STREAM, 0);
        int one = 1;
        setsockopt(c[i].fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (connect(c[i].fd, (struct sockaddr *)&sa, sizeof sa) != 0) { perror("connect"); return 1; }
    }

    uint64_t next = opt.start, end = opt.start + opt.items, hits = 0, requests = 0, done_items = 0;
    double t0 = now();
    int active = opt.clients;
    while (active) {
        for (int i = 0; i < opt.clients; i++) {
            conn *k = &c[i];
            if (k->fd >= 0 && k->awaiting == 0 && k->sent == k->out.len) {
                k->out.len = k->sent = 0;
                for (int d = 0; d < opt.pipeline && next < end; d++) {
                    size_t n = end - next < opt.batch ? (size_t)(end - next) : opt.batch;
                    k->awaiting += build(&k->out, next, n);
                    next += n;
                    done_items += n;
                }
                if (k->awaiting == 0) { close(k->fd); k->fd = -1; active--; }
            }
            pfd[i].fd = k->fd;
            pfd[i].events = k->fd < 0 ? 0 : (short)(POLLIN | (k->sent < k->out.len ? POLLOUT : 0));
        }
        if (!active) break;
        if (poll(pfd, (nfds_t)opt.clients, 10000) <= 0) { fprintf(stderr, "poll timed out\n"); return 1; }
        for (int i = 0; i < opt.clients; i++) {
            conn *k = &c[i];
            if (k->fd < 0) continue;
            if (pfd[i].revents & POLLOUT) {
                ssize_t w = send(k->fd, k->out.p + k->sent, k->out.len - k->sent, MSG_NOSIGNAL);
                if (w < 0 && errno != EAGAIN) { perror("send"); return 1; }
                if (w > 0) k->sent += (size_t)w;
            }
            if (pfd[i].revents & (POLLIN | POLLHUP | POLLERR)) {
                if (k->in.cap - k->in.len < 65536) {
                    k->in.cap = k->in.cap * 2 + 65536;
                    k->in.p = realloc(k->in.p, k->in.cap);
                }
                ssize_t r = recv(k->fd, k->in.p + k->in.len, k->in.cap - k->in.len, 0);
                if (r <= 0) { fprintf(stderr, "connection closed by the server\n"); return 1; }
                k->in.len += (size_t)r;
                size_t at = 0, m;
                while (k->awaiting && (m = parse(k->in.p + at, k->in.len - at, &hits)) > 0) {
                    at += m;
                    k->awaiting--;
                    requests++;
                }
                memmove(k->in.p, k->in.p + at, k->in.len - at);
                k->in.len -= at;
            }
        }
    }
    double secs = now() - t0;
    double per_item = kind == C_SETBIT || kind == C_GETBIT ? (double)opt.k : 1.0;
    printf("%s batch=%zu items=%llu seconds=%.3f req/s=%.0f items/s=%.0f hits=%llu hit_fraction=%.6f\n",
           commands[opt.ci].name, opt.batch, (unsigned long long)done_items, secs, requests / secs,
           done_items / secs, (unsigned long long)hits,
           done_items ? (double)hits / per_item / (double)done_items : 0.0);
    return 0;
}
