/* The OpenCL app: the driver with the OpenCL backend. */
#include "app/driver.h"
#include "opencl_backend.h"

int main(int argc, char **argv)
{
    static const orr_app_info app = {"orrery_opencl", 1, orr_open_opencl_backend};
    return orr_main(argc, argv, &app);
}
