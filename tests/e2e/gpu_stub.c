/* A GPU app without GPU code, for the real-client test: it needs the GPU the
 * client assigned and never finds it usable, so it must end in BOINC's
 * temporary exit ("postponed") through the same driver and runtime path the
 * real GPU apps take when their device is missing or busy. Like the CUDA
 * app it takes NVIDIA GPUs only: another vendor's, assigned by the client,
 * can never run it, a permanent failure (ORR_ERR_DEVICE_UNFIT) that must
 * end the task as an error (exit 78), not a temporary exit. */
#include <stdio.h>
#include <string.h>

#include "app/driver.h"
#include "runtime/runtime.h"

static orr_status open_stub_gpu(const orr_backend_request *req, orr_backend *be, orr_error *err)
{
    const orr_init_data *id = orr_runtime_init_data();
    (void)be;
    if (id->gpu_type[0] != '\0' && strcmp(id->gpu_type, "NVIDIA") != 0)
        return orr_fail(err, ORR_ERR_DEVICE_UNFIT, "the client assigned a GPU of type %s to a stub "
                        "for NVIDIA GPUs", id->gpu_type);
    if (id->gpu_type[0] == '\0' && req->device < 0)
        return orr_fail(err, ORR_ERR_DEVICE, "no GPU assigned (neither by the client nor --device)");
    return orr_fail(err, ORR_ERR_DEVICE, "no usable GPU: %s device %d was assigned, but this test "
                    "stub has no GPU code", id->gpu_type[0] ? id->gpu_type : "command-line",
                    id->gpu_type[0] ? id->gpu_device_num : req->device);
}

int main(int argc, char **argv)
{
    static const orr_app_info app = {"orrery_gpu_stub", 1, open_stub_gpu};
    return orr_main(argc, argv, &app);
}
