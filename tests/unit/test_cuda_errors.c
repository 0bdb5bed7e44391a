/* The CUDA error classes (app_cuda/device_cuda.c): each cudaError_t is
 * temporary (ORR_ERR_DEVICE, exit 75: BOINC's temporary exit, another try
 * on this host may work) or permanent for this host (ORR_ERR_DEVICE_UNFIT,
 * exit 78: an error, so the server sends the task elsewhere). Runs
 * without a GPU or a driver: the runtime names its errors by itself. */
#include <CUnit/Basic.h>
#include <cuda_runtime_api.h>
#include <string.h>

#include "device_cuda.h"

static void test_temporary(void)
{
    /* memory short now, busy, gone now, the watchdog, a reboot pending */
    static const cudaError_t codes[] = {
        cudaErrorMemoryAllocation, cudaErrorDevicesUnavailable, cudaErrorDeviceAlreadyInUse,
        cudaErrorNoDevice, cudaErrorInitializationError, cudaErrorLaunchTimeout,
        cudaErrorSystemNotReady, cudaErrorSystemDriverMismatch};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        CU_ASSERT_EQUAL(orr_cuda_status(codes[i]), ORR_ERR_DEVICE);
        if (orr_cuda_status(codes[i]) != ORR_ERR_DEVICE)
            printf("\n  %s is not temporary\n", cudaGetErrorName(codes[i]));
    }
}

static void test_permanent(void)
{
    /* no image or PTX for this device or driver, a driver older than the
     * runtime (or none), launch limits of this device, kernel faults */
    static const cudaError_t codes[] = {
        cudaErrorNoKernelImageForDevice, cudaErrorInvalidDeviceFunction,
        cudaErrorUnsupportedPtxVersion, cudaErrorInvalidPtx, cudaErrorJitCompilerNotFound,
        cudaErrorInsufficientDriver, cudaErrorCallRequiresNewerDriver, cudaErrorStubLibrary,
        cudaErrorLaunchOutOfResources, cudaErrorInvalidConfiguration, cudaErrorIllegalAddress,
        cudaErrorLaunchFailure, cudaErrorUnknown};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        CU_ASSERT_EQUAL(orr_cuda_status(codes[i]), ORR_ERR_DEVICE_UNFIT);
        if (orr_cuda_status(codes[i]) != ORR_ERR_DEVICE_UNFIT)
            printf("\n  %s is not permanent\n", cudaGetErrorName(codes[i]));
    }
    CU_ASSERT_EQUAL(orr_cuda_status(cudaSuccess), ORR_OK);
}

static void test_messages(void)
{
    orr_error err;
    orr_error_clear(&err);
    CU_ASSERT_EQUAL(orr_cuda_fail(&err, cudaErrorNoKernelImageForDevice, "launching"),
                    ORR_ERR_DEVICE_UNFIT);
    CU_ASSERT_EQUAL(err.status, ORR_ERR_DEVICE_UNFIT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "CUDA: launching: "));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "(cudaErrorNoKernelImageForDevice)"));
    CU_ASSERT_EQUAL(orr_status_exit_code(err.status), 78);
    CU_ASSERT_EQUAL(orr_cuda_fail(&err, cudaErrorMemoryAllocation, "allocating"), ORR_ERR_DEVICE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "(cudaErrorMemoryAllocation)"));
    CU_ASSERT_EQUAL(orr_status_exit_code(err.status), 75);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return CU_get_error();
    CU_pSuite s = CU_add_suite("CUDA error classes", NULL, NULL);
    CU_add_test(s, "temporary: busy, lost, memory short now", test_temporary);
    CU_add_test(s, "permanent: images, driver, device limits, faults", test_permanent);
    CU_add_test(s, "orr_cuda_fail: message, status, exit code", test_messages);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    const unsigned failed = CU_get_number_of_failures();
    CU_cleanup_registry();
    return failed ? 1 : 0;
}
