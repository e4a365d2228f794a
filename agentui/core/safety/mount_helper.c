/* The guard's and the sandbox's mounts, made inside bubblewrap with the new mount API: one clone, one attribute
 * change and one move per path, where bubblewrap rereads the whole mount table after each of its mounts (~0.2 ms
 * each, ~75 of them under the guard). Then it gives up the capabilities that took and runs the command. agentui
 * builds it with the system's C compiler into its own data directory (see mount_helper.py); without it, bubblewrap
 * makes the same mounts itself and sandbox_pin.py pins the links.
 *
 *     mount-helper --drop all|N,N,... [--user UID:GID] [SPEC...] -- PROGRAM [ARGS...]
 *
 * SPEC is a letter and an absolute path:
 *     b/PATH  PATH bound over itself, writable: a mount point cannot be renamed or removed (a pin)
 *     r/PATH  PATH bound over itself read-only, with everything mounted inside it
 *     l/PATH  the symbolic link PATH bound over itself, not followed (bubblewrap's mounts follow links)
 * Each is made on what the namespace shows at that moment, masks included, in the order given.
 *
 * --drop: the capabilities taken out of the bounding set (all of them in the sandbox; for a root agentui under the
 * guard, those that would undo a mount). --user: bubblewrap ran this as uid 0 of a namespace it made (`--uid 0`);
 * once the mounts are made, a second user namespace maps UID and GID back, as bubblewrap would have.
 *
 * Every failure exits 126 with one line on stderr, before the command runs. */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The same numbers on every architecture (these calls came after the system call tables were unified). */
#define NR_OPEN_TREE 428
#define NR_MOVE_MOUNT 429
#define NR_MOUNT_SETATTR 442
#define OPEN_TREE_CLONE_ 1
#define OPEN_TREE_CLOEXEC_ O_CLOEXEC
#define AT_RECURSIVE_ 0x8000
#define MOVE_MOUNT_F_EMPTY_PATH_ 0x4
#define MOVE_MOUNT_T_SYMLINKS_ 0x10
#define MOUNT_ATTR_RDONLY_ 0x1
#define MOUNT_ATTR_NOSUID_ 0x2
#define MOUNT_ATTR_NODEV_ 0x4
#define CAP_SETPCAP_ 8
#define CAPABILITY_VERSION_3 0x20080522

struct mount_attr_ {
    uint64_t attr_set, attr_clr, propagation, userns_fd;
};

static void fail(const char *what, const char *path) {
    fprintf(stderr, "agentui: cannot %s %s (%s); the command was not run\n", what, path, strerror(errno));
    _exit(126);
}

static void usage(void) {
    fprintf(stderr, "agentui: mount-helper: bad arguments; the command was not run\n");
    _exit(126);
}

/* `path` bound over itself as bubblewrap's --bind or --ro-bind would (recursive, nosuid, nodev, links followed),
 * or, for a link, the link itself. */
static void bind_over(const char *path, char kind) {
    int link = kind == 'l';
    unsigned flags = OPEN_TREE_CLONE_ | OPEN_TREE_CLOEXEC_ | (link ? AT_SYMLINK_NOFOLLOW : AT_RECURSIVE_);
    int tree = (int)syscall(NR_OPEN_TREE, AT_FDCWD, path, flags);
    if (tree < 0) fail(link ? "pin the link" : "bind", path);
    if (!link) {
        struct mount_attr_ attr = {0};
        attr.attr_set = MOUNT_ATTR_NOSUID_ | MOUNT_ATTR_NODEV_ | (kind == 'r' ? MOUNT_ATTR_RDONLY_ : 0);
        if (syscall(NR_MOUNT_SETATTR, tree, "", AT_EMPTY_PATH | AT_RECURSIVE_, &attr, sizeof attr) < 0)
            fail("protect", path);
    }
    unsigned move = MOVE_MOUNT_F_EMPTY_PATH_ | (link ? 0 : MOVE_MOUNT_T_SYMLINKS_);
    if (syscall(NR_MOVE_MOUNT, tree, "", AT_FDCWD, path, move) < 0) fail(link ? "pin the link" : "bind", path);
    close(tree);
}

static void write_file(const char *name, const char *text) {
    int fd = open(name, O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) fail("map the user back through", name);
    close(fd);
}

static void become(const char *user) {
    unsigned long uid, gid;
    char extra, map[64];
    if (sscanf(user, "%lu:%lu%c", &uid, &gid, &extra) != 2) usage();
    if (unshare(CLONE_NEWUSER) < 0) fail("make", "a user namespace");
    write_file("/proc/self/setgroups", "deny");
    snprintf(map, sizeof map, "%lu 0 1", uid);
    write_file("/proc/self/uid_map", map);
    snprintf(map, sizeof map, "%lu 0 1", gid);
    write_file("/proc/self/gid_map", map);
}

static int last_capability(void) {
    FILE *file = fopen("/proc/sys/kernel/cap_last_cap", "re");
    int last = -1;
    if (file == NULL || fscanf(file, "%d", &last) != 1 || last < 0 || last > 63) fail("read", "cap_last_cap");
    fclose(file);
    return last;
}

static void drop_one(int cap) {
    if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && errno != EINVAL) { /* EINVAL: not known to this kernel */
        char name[16];
        snprintf(name, sizeof name, "%d", cap);
        fail("drop capability", name);
    }
}

static void drop(const char *which) {
    int last = last_capability();
    if (strcmp(which, "all") == 0) {
        for (int cap = 0; cap <= last; cap++)
            if (cap != CAP_SETPCAP_) drop_one(cap);
    } else {
        char *end;
        for (const char *at = which; *at;) {
            long cap = strtol(at, &end, 10);
            if (end == at || cap < 0 || cap > 63 || (*end != ',' && *end != '\0')) usage();
            if (cap != CAP_SETPCAP_) drop_one((int)cap);
            at = *end == ',' ? end + 1 : end;
        }
    }
    drop_one(CAP_SETPCAP_); /* last: it is what drops the others */
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    struct { uint32_t version; int pid; } header = {CAPABILITY_VERSION_3, 0};
    uint32_t data[6] = {0}; /* effective, permitted, inheritable, for capabilities 0-31 and 32-63: none */
    if (syscall(SYS_capset, &header, data) < 0) fail("give up", "capabilities");
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) fail("set", "no_new_privs");
}

int main(int argc, char **argv) {
    int at = 1;
    if (argc < 4 || strcmp(argv[at], "--drop") != 0) usage();
    const char *which = argv[at + 1];
    const char *user = NULL;
    at += 2;
    if (at + 1 < argc && strcmp(argv[at], "--user") == 0) {
        user = argv[at + 1];
        at += 2;
    }
    /* The working directory bubblewrap entered is on the mounts from before: a relative path from it would walk
     * under the binds made here (`> .git/hooks/x` from a pinned project). Enter it again once they are made. */
    char *cwd = getcwd(NULL, 0);
    if (cwd == NULL) fail("read", "the working directory");
    for (; at < argc && strcmp(argv[at], "--") != 0; at++) {
        const char *spec = argv[at];
        if (spec[0] == '\0' || strchr("brl", spec[0]) == NULL || spec[1] != '/') usage();
        bind_over(spec + 1, spec[0]);
    }
    if (at + 1 >= argc) usage();
    if (chdir(cwd) < 0) fail("enter", cwd);
    free(cwd);
    if (user != NULL) become(user);
    drop(which);
    execvp(argv[at + 1], argv + at + 1);
    fail("run", argv[at + 1]);
    return 126;
}
