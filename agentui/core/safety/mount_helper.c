/* The guard's and the sandbox's mounts, made inside bubblewrap with the new mount API: one clone, one attribute
 * change and one move per path, where bubblewrap rereads the whole mount table after each of its mounts (~0.2 ms
 * each, ~75 of them under the guard). Then it gives up the capabilities that took and runs the command. agentui
 * builds it with the system's C compiler into its own data directory (see mount_helper.py); without it, bubblewrap
 * makes the same mounts itself and sandbox_pin.py pins the links.
 *
 *     mount-helper --drop all|N,N,... [--user UID:GID] --chdir DIR [SPEC...] -- PROGRAM [ARGS...]
 *
 * SPEC is a letter and an absolute path, made in the order given, on what the namespace shows at that moment:
 *     h/PATH  the directory PATH hidden under an empty tmpfs (writable until an R names it: see e)
 *     n/PATH  the file PATH hidden under /dev/null, read-only
 *     e/PATH  PATH shown again, read-only, as it was before any h or n (its mount point made in the tmpfs)
 *     R/PATH  PATH and everything mounted inside it made read-only (after the e inside an h)
 *     b/PATH  PATH bound over itself, writable: a mount point cannot be renamed or removed (a pin)
 *     r/PATH  PATH bound over itself read-only, with everything mounted inside it
 *     l/PATH  the symbolic link PATH bound over itself, not followed (bubblewrap's mounts follow links)
 *
 * --drop: the capabilities taken out of the bounding set and given up (all of them in the sandbox; for a root
 * agentui under the guard, those that would undo a mount). --chdir: the command's working directory. --user: bubblewrap ran this as uid 0 of a namespace it made (`--uid 0`);
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
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The same numbers on every architecture (these calls came after the system call tables were unified). */
#define NR_OPEN_TREE 428
#define NR_MOVE_MOUNT 429
#define NR_FSOPEN 430
#define NR_FSCONFIG 431
#define NR_FSMOUNT 432
#define NR_MOUNT_SETATTR 442
#define FSOPEN_CLOEXEC_ 1
#define FSCONFIG_SET_STRING_ 1
#define FSCONFIG_CMD_CREATE_ 6
#define FSMOUNT_CLOEXEC_ 1
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

static void set_attributes(int tree, const char *path, uint64_t attributes, int recursive) {
    struct mount_attr_ attr = {0};
    attr.attr_set = attributes;
    if (syscall(NR_MOUNT_SETATTR, tree, tree == AT_FDCWD ? path : "",
                (tree == AT_FDCWD ? 0 : AT_EMPTY_PATH) | (recursive ? AT_RECURSIVE_ : 0), &attr, sizeof attr) < 0)
        fail("protect", path);
}

static int clone_tree(const char *source, const char *path, int recursive, int follow) {
    unsigned flags = OPEN_TREE_CLONE_ | OPEN_TREE_CLOEXEC_ | (recursive ? AT_RECURSIVE_ : 0);
    int tree = (int)syscall(NR_OPEN_TREE, AT_FDCWD, source, flags | (follow ? 0 : AT_SYMLINK_NOFOLLOW));
    if (tree < 0) fail("bind", path);
    return tree;
}

static void attach(int tree, const char *path, int follow) {
    unsigned move = MOVE_MOUNT_F_EMPTY_PATH_ | (follow ? MOVE_MOUNT_T_SYMLINKS_ : 0);
    if (syscall(NR_MOVE_MOUNT, tree, "", AT_FDCWD, path, move) < 0) fail("bind", path);
    close(tree);
}

/* `path` bound over itself as bubblewrap's --bind or --ro-bind would (recursive, nosuid, nodev, links followed),
 * or, for a link, the link itself. */
static void bind_over(const char *path, char kind) {
    if (kind == 'l') {
        attach(clone_tree(path, path, 0, 0), path, 0);
        return;
    }
    int tree = clone_tree(path, path, 1, 1);
    set_attributes(tree, path, MOUNT_ATTR_NOSUID_ | MOUNT_ATTR_NODEV_ | (kind == 'r' ? MOUNT_ATTR_RDONLY_ : 0), 1);
    attach(tree, path, 1);
}

/* An empty tmpfs over the directory `path`, as bubblewrap's --tmpfs (mode 0755, nosuid, nodev). Returns a descriptor
 * of its root: what is shown again inside it is placed from there, never by a path a command could redirect. */
static int hide_directory(const char *path) {
    int context = (int)syscall(NR_FSOPEN, "tmpfs", FSOPEN_CLOEXEC_);
    if (context < 0) fail("hide", path);
    if (syscall(NR_FSCONFIG, context, FSCONFIG_SET_STRING_, "mode", "0755", 0) < 0 ||
        syscall(NR_FSCONFIG, context, FSCONFIG_CMD_CREATE_, NULL, NULL, 0) < 0)
        fail("hide", path);
    int tree = (int)syscall(NR_FSMOUNT, context, FSMOUNT_CLOEXEC_, MOUNT_ATTR_NOSUID_ | MOUNT_ATTR_NODEV_);
    if (tree < 0) fail("hide", path);
    close(context);
    int root = fcntl(tree, F_DUPFD_CLOEXEC, 0);
    if (root < 0) fail("hide", path);
    attach(tree, path, 1);
    return root;
}

/* /dev/null over the file `path`, read-only, as bubblewrap's --ro-bind /dev/null PATH (nodev: it opens to nothing). */
static void hide_file(const char *path) {
    int tree = clone_tree("/dev/null", path, 0, 1);
    set_attributes(tree, path, MOUNT_ATTR_RDONLY_ | MOUNT_ATTR_NOSUID_ | MOUNT_ATTR_NODEV_, 0);
    attach(tree, path, 1);
}

/* `tree` shown again at `path`, read-only, inside the tmpfs `hidden` holds (its root `root`): the directories on the
 * way and the mount point (a directory or an empty file, as `tree` is one) made beneath that root. */
static void show_again(int tree, const char *path, const char *hidden, int root) {
    char *relative = strdup(path + strlen(hidden) + 1);
    struct stat info;
    if (relative == NULL || fstat(tree, &info) < 0) fail("show", path);
    for (char *slash = strchr(relative, '/'); slash != NULL; slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        if (mkdirat(root, relative, 0755) < 0 && errno != EEXIST) fail("show", path);
        *slash = '/';
    }
    if (S_ISDIR(info.st_mode)) {
        if (mkdirat(root, relative, 0755) < 0 && errno != EEXIST) fail("show", path);
    } else {
        int file = openat(root, relative, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0444);
        if (file < 0) fail("show", path);
        close(file);
    }
    set_attributes(tree, path, MOUNT_ATTR_RDONLY_ | MOUNT_ATTR_NOSUID_ | MOUNT_ATTR_NODEV_, 1);
    if (syscall(NR_MOVE_MOUNT, tree, "", root, relative, MOVE_MOUNT_F_EMPTY_PATH_) < 0) fail("show", path);
    close(tree);
    free(relative);
}

/* The tmpfs this helper made that holds `path` most closely (-1 for none). */
static int holder(char **argv, const int *roots, int count, const char *path) {
    int found = -1;
    size_t longest = 0;
    for (int i = 0; i < count; i++) {
        size_t length = strlen(argv[i] + 1);
        if (roots[i] >= 0 && length > longest && strncmp(path, argv[i] + 1, length) == 0 && path[length] == '/') {
            found = i;
            longest = length;
        }
    }
    return found;
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

/* Out of the bounding set and of the capabilities held: `which` (all of them, or numbers). What is not named stays,
 * as bubblewrap leaves it (a root agentui's commands under the guard keep root's other capabilities). */
static void drop(const char *which) {
    int last = last_capability();
    uint64_t dropped = 0;
    if (strcmp(which, "all") == 0) {
        dropped = last == 63 ? ~(uint64_t)0 : ((uint64_t)1 << (last + 1)) - 1;
    } else {
        char *end;
        for (const char *at = which; *at;) {
            long cap = strtol(at, &end, 10);
            if (end == at || cap < 0 || cap > 63 || (*end != ',' && *end != '\0')) usage();
            dropped |= (uint64_t)1 << cap;
            at = *end == ',' ? end + 1 : end;
        }
    }
    for (int cap = 0; cap <= 63; cap++)
        if (cap != CAP_SETPCAP_ && dropped & ((uint64_t)1 << cap)) drop_one(cap);
    if (dropped & ((uint64_t)1 << CAP_SETPCAP_)) drop_one(CAP_SETPCAP_); /* last: it is what drops the others */
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    struct { uint32_t version; int pid; } header = {CAPABILITY_VERSION_3, 0};
    uint32_t data[6]; /* effective, permitted, inheritable for capabilities 0-31, then the same for 32-63 */
    if (syscall(SYS_capget, &header, data) < 0) fail("read", "capabilities");
    for (int i = 0; i < 3; i++) {
        data[i] &= ~(uint32_t)dropped;
        data[i + 3] &= ~(uint32_t)(dropped >> 32);
    }
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
    /* The working directory is entered once the mounts are made: one entered before is on the mounts from before,
     * and a path from it walks under the binds made here (`> .git/hooks/x` from a pinned project). So bubblewrap
     * enters `/` (where its PID 1 stays: /proc/1/cwd) and this enters --chdir. */
    if (at + 1 >= argc || strcmp(argv[at], "--chdir") != 0 || argv[at + 1][0] != '/') usage();
    const char *cwd = argv[at + 1];
    at += 2;
    int first = at, end = at;
    while (end < argc && strcmp(argv[end], "--") != 0) {
        const char *spec = argv[end++];
        if (spec[0] == '\0' || strchr("hneRbrl", spec[0]) == NULL || spec[1] != '/') usage();
    }
    if (end + 1 >= argc) usage();
    /* What is shown again is taken before anything is hidden. */
    int *shown = calloc((size_t)(end - first) + 1, sizeof *shown);
    if (shown == NULL) fail("read", "the arguments");
    for (int i = first; i < end; i++)
        if (argv[i][0] == 'e') shown[i - first] = clone_tree(argv[i] + 1, argv[i] + 1, 1, 1);
    int *roots = calloc((size_t)(end - first) + 1, sizeof *roots);  /* each h's tmpfs root, else -1 */
    if (roots == NULL) fail("read", "the arguments");
    for (int i = first; i < end; i++) {
        const char *path = argv[i] + 1;
        int at_i = i - first, held;
        roots[at_i] = -1;
        switch (argv[i][0]) {
        case 'h': roots[at_i] = hide_directory(path); break;
        case 'n': hide_file(path); break;
        case 'e':
            if ((held = holder(argv + first, roots, at_i, path)) < 0) {
                errno = ENOENT;
                fail("show", path);  /* (only inside what this hid: nothing else is ever asked) */
            }
            show_again(shown[at_i], path, argv[first + held] + 1, roots[held]);
            break;
        case 'R':
            held = -1;
            for (int j = 0; j < at_i; j++)
                if (roots[j] >= 0 && strcmp(argv[first + j] + 1, path) == 0) held = j;
            if (held >= 0) set_attributes(roots[held], path, MOUNT_ATTR_RDONLY_, 1);
            else set_attributes(AT_FDCWD, path, MOUNT_ATTR_RDONLY_, 1);
            break;
        default: bind_over(path, argv[i][0]);
        }
    }
    for (int i = 0; i < end - first; i++)
        if (roots[i] >= 0) close(roots[i]);
    free(roots);
    free(shown);
    at = end;
    if (chdir(cwd) < 0) fail("enter", cwd);
    if (user != NULL) become(user);
    drop(which);
    execvp(argv[at + 1], argv + at + 1);
    fail("run", argv[at + 1]);
    return 126;
}
