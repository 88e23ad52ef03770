#include <stdio.h>
#include <pthread.h>
#include <time.h>
#include <stdint.h>
#include <stdlib.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
void* work(void*v){uint64_t x[8],s=0; for(int k=0;k<8;k++)x[k]=k+(uint64_t)v; for(long i=0;i<100000000;i++){for(int k=0;k<8;k++){x[k]=x[k]*6364136223846793005ULL+1442695040888963407ULL;} } for(int k=0;k<8;k++)s+=x[k]; return (void*)s;}
/* random reads in a 1.5 MB array per thread */
void* mem(void*v){uint32_t n=(3<<19)/4; uint32_t*a=malloc(n*4); for(uint32_t i=0;i<n;i++)a[i]=(i*2654435761u)%n; uint32_t j=0,s=0; uint64_t r=(uint64_t)v+1; for(long i=0;i<60000000;i++){r=r*6364136223846793005ULL+1; s+=a[(r>>40)%n];} return (void*)(uint64_t)s;}
int main(){void*(*f[2])(void*)={work,mem}; const char*nm[2]={"8 independent chains","random reads 1.5MB"}; for(int w=0;w<2;w++)for(int th=1;th<=2;th++){double t=now();pthread_t p[2];for(int i=0;i<th;i++)pthread_create(&p[i],0,f[w],(void*)(long)i);for(int i=0;i<th;i++)pthread_join(p[i],0);printf("%s, %d threads: %.3f s (each the same work)\n",nm[w],th,now()-t);}}
