/* main_one.c - a program made of one kernel: built with -DWL_KERNEL=wl_NAME. */
#include "workload.h"

int main(void)
{
    return WL_KERNEL();
}
