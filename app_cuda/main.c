/* The CUDA app: the driver with the CUDA backend. */
#include "cuda_backend.h"
#include "app/driver.h"

int main(int argc, char **argv)
{
    static const orr_app_info app = {"orrery_cuda", 1, orr_open_cuda_backend};
    return orr_main(argc, argv, &app);
}
