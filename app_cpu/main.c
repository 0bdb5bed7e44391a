/* The CPU app: the driver with the CPU backend. */
#include "cpu_backend.h"
#include "app/driver.h"

int main(int argc, char **argv)
{
    static const orr_app_info app = {"orrery_cpu", 0, orr_open_cpu_backend};
    return orr_main(argc, argv, &app);
}
