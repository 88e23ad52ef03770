#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <string.h>
#include <pthread.h>
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
size_t N=620ul<<20;
struct arg{char*p;size_t n;int mode;};
void* work(void*v){struct arg*a=v; if(a->mode==1){madvise(a->p,a->n,MADV_POPULATE_WRITE);} else if(a->mode==2){madvise(a->p,a->n,MADV_HUGEPAGE);} for(size_t i=0;i<a->n;i+=4096)a->p[i]=1; return 0;}
int main(int argc,char**argv){int mode=atoi(argv[1]);int th=atoi(argv[2]);
for(int r=0;r<4;r++){double t0=now();char*p=mmap(0,N,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0);
pthread_t t[8];struct arg a[8];for(int i=0;i<th;i++){a[i].p=p+N/th*i;a[i].n=N/th;a[i].mode=mode;pthread_create(&t[i],0,work,&a[i]);}
for(int i=0;i<th;i++)pthread_join(t[i],0);double t1=now();munmap(p,N);double t2=now();printf("mode %d th %d touch %.1f ms unmap %.1f ms\n",mode,th,(t1-t0)*1e3,(t2-t1)*1e3);}
}
