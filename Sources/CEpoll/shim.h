// epoll(7), eventfd(2), accept4(2) and pthread_setname_np(3), which Swift's
// Glibc module leaves out.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <pthread.h>

// accept4 is declared only under _GNU_SOURCE; its prototype, so Swift sees it.
extern int accept4(int sockfd, struct sockaddr *addr, socklen_t *addrlen, int flags);
extern int pthread_setname_np(pthread_t thread, const char *name);

#include <sys/syscall.h>
#include <unistd.h>

// read(2), send(2), sendmsg(2) and epoll_wait(2) as plain system calls.
// glibc's wrappers are cancellation points: in a process of more than one
// thread each call switches the thread to asynchronous cancellation and
// back, two atomic operations around the system call. propd cancels no
// thread, so its loops make the calls without them. Each returns what the
// wrapper returns and sets errno as it does.
static inline ssize_t propd_read(int fd, void *buffer, size_t count) {
    return syscall(SYS_read, fd, buffer, count);
}

static inline ssize_t propd_send(int fd, const void *buffer, size_t length, int flags) {
    return syscall(SYS_sendto, fd, buffer, length, flags, (void *)0, 0);
}

static inline ssize_t propd_sendmsg(int fd, const struct msghdr *message, int flags) {
    return syscall(SYS_sendmsg, fd, message, flags);
}

static inline int propd_epoll_wait(int epoll, struct epoll_event *events, int capacity, int timeout) {
    return (int)syscall(SYS_epoll_pwait, epoll, events, capacity, timeout, (void *)0, 0);
}
