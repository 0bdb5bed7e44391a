/* The OpenCL app. Until its kernels land it runs the shared CPU reference so
 * the binary, its build and its command line exist and stay tested. */
#include "driver.h"

int main(int argc, char **argv)
{
    static const orr_app_info app = {"orrery_opencl", 1, orr_open_reference_backend};
    return orr_main(argc, argv, &app);
}
