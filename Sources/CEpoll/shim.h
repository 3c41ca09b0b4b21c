// epoll(7), eventfd(2), accept4(2) and pthread_setname_np(3), which Swift's
// Glibc module leaves out.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <pthread.h>

// accept4 is declared only under _GNU_SOURCE; its prototype, so Swift sees it.
extern int accept4(int sockfd, struct sockaddr *addr, socklen_t *addrlen, int flags);
extern int pthread_setname_np(pthread_t thread, const char *name);
