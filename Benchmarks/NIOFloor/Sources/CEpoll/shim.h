// epoll(7), which Swift's Glibc module leaves out.
#include <sys/epoll.h>
