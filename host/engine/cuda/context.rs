//! The process's GPU: one CUDA context, one stream, the kernels loaded on
//! first use (each as a module of its own: see `super::ptx`) and cached, and the typed helpers every
//! cuda operation uses — upload, download, allocate, launch, synchronize —
//! each mapping driver failures to spmx errors that say what to do.
//!
//! Everything runs on one stream, in order, so cudarc's per-buffer event
//! tracking is switched off: there is no second stream to synchronize with.

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::sys::{CUmemPool_attribute, CUresult};
use cudarc::driver::{
    CudaContext, CudaEvent, CudaFunction, CudaSlice, CudaStream, DevicePtr, DevicePtrMut,
    DeviceRepr, DriverError, ValidAsZeroBits,
};
use cudarc::nvrtc::Ptx;
use gpu_kernels::args::{DevPtr, DevPtrMut, SHARED_DEFAULT_MAX};
use gpu_kernels::kernels::{self, Launchable, utility};

use super::ptx::{entry_module, load_error};
use crate::error::{Error, Result};

mod launch;

/// Environment variable choosing the device ordinal (default 0).
pub const DEVICE_ENV: &str = "SPMX_CUDA_DEVICE";

/// Shared memory the driver keeps for itself in each block.
const SHARED_RESERVED_PER_BLOCK: u32 = 1024;

/// A started GPU. Get the process's one with [`Gpu::get`].
pub struct Gpu {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    /// A stream for a kernel that runs at once with one on `stream`
    /// ([`Gpu::launch_beside`]), ordered with `stream`'s work by `fork`
    /// (recorded on `stream` only) and `join` (on `side` only).
    side: Arc<CudaStream>,
    fork: CudaEvent,
    join: CudaEvent,
    functions: Mutex<HashMap<String, CudaFunction>>,
    /// The kernels of `functions` by typed handle (its type, which names
    /// the semiring, and its family), as [`Gpu::launch`] asks for them: a launch finds its kernel by one
    /// lookup, not by a search of the PTX's table of kernels and a second
    /// lookup by name (a few hundred nanoseconds, a few percent of a
    /// small product's numeric phase).
    handles: Mutex<HashMap<(TypeId, &'static str), CudaFunction>>,
    name: String,
    sm_count: u32,
    /// Shared memory of a multiprocessor, and the most one block may ask
    /// for (beyond 48 KiB a kernel must opt in; `function` does).
    shared_per_sm: u32,
    shared_optin: u32,
    ordinal: usize,
    /// The memory pool every allocation comes from (`None` on a device
    /// without stream-ordered allocation, where cudarc calls `cuMemAlloc`).
    pool: Option<MemPool>,
}

/// The device's current memory pool, which `cuMemAllocAsync` draws on. Its
/// release threshold is set to the maximum at start: freed memory stays in
/// the pool for the next allocation instead of going back to the driver at
/// each synchronization, as in CuPy's and PyTorch's caching allocators.
/// Without it every product pays the driver's allocation again.
#[derive(Clone, Copy)]
struct MemPool(cudarc::driver::sys::CUmemoryPool);
// SAFETY: a pool handle is a driver object usable from any thread.
unsafe impl Send for MemPool {}
unsafe impl Sync for MemPool {}

impl MemPool {
    /// The current pool of `ctx`'s device, set to keep what is freed.
    fn keeping(ctx: &CudaContext) -> std::result::Result<Option<MemPool>, String> {
        use cudarc::driver::sys::{cuDeviceGetMemPool, cuMemPoolSetAttribute};
        if !ctx.has_async_alloc() {
            return Ok(None);
        }
        let mut pool = std::ptr::null_mut();
        let mut keep_all = u64::MAX;
        // SAFETY: the context's device; the release threshold is a u64.
        unsafe {
            cuDeviceGetMemPool(&mut pool, ctx.cu_device())
                .result()
                .map_err(|e| format!("cuDeviceGetMemPool: {e:?}"))?;
            cuMemPoolSetAttribute(
                pool,
                CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
                (&raw mut keep_all).cast(),
            )
            .result()
            .map_err(|e| format!("cuMemPoolSetAttribute: {e:?}"))?;
        }
        Ok(Some(MemPool(pool)))
    }
}

static GPU: OnceLock<std::result::Result<Gpu, String>> = OnceLock::new();

fn unavailable(reason: impl Into<String>) -> Error {
    Error::Unavailable {
        engine: "cuda",
        reason: reason.into(),
    }
}

/// A failed driver call, named.
fn driver(what: &str, e: DriverError) -> Error {
    unavailable(format!("{what}: {e:?}"))
}

impl Gpu {
    /// Threads per block of [`Gpu::launch_threads`], at most.
    pub const BLOCK: u32 = 256;

    /// The GPU this process uses (device `$SPMX_CUDA_DEVICE`, default 0),
    /// started on first use. Without a driver or a device the error says
    /// so and suggests `--engine cpu`.
    pub fn get() -> Result<&'static Gpu> {
        GPU.get_or_init(|| Gpu::start(None))
            .as_ref()
            .map_err(|reason| unavailable(reason.clone()))
    }

    /// The GPU on device `ordinal` for a process that chooses its own (an
    /// MPI rank takes the one its local rank names); later [`Gpu::get`]
    /// calls return it. An error if this process already started another.
    pub fn select(ordinal: usize) -> Result<&'static Gpu> {
        let gpu = GPU
            .get_or_init(|| Gpu::start(Some(ordinal)))
            .as_ref()
            .map_err(|reason| unavailable(reason.clone()))?;
        if gpu.ordinal != ordinal {
            return Err(unavailable(format!(
                "device {ordinal} was asked for, but this process already runs on device {}",
                gpu.ordinal
            )));
        }
        Ok(gpu)
    }

    /// CUDA devices on this machine (0 without a driver).
    pub fn device_count() -> usize {
        // SAFETY: only tries to open the driver library.
        if !unsafe { cudarc::driver::sys::is_culib_present() } {
            return 0;
        }
        CudaContext::device_count().map_or(0, |n| n.max(0) as usize)
    }

    /// Whether a GPU can be used here (starting it if not yet started).
    pub fn present() -> bool {
        Gpu::get().is_ok()
    }

    /// Starts device `requested`, or `$SPMX_CUDA_DEVICE` (default 0).
    fn start(requested: Option<usize>) -> std::result::Result<Gpu, String> {
        const CPU: &str = "; use --engine cpu";
        if let Some(why) = super::ptx::MISSING {
            return Err(format!("{why}{CPU}"));
        }
        // SAFETY: only tries to open the driver library.
        if !unsafe { cudarc::driver::sys::is_culib_present() } {
            return Err(format!(
                "no NVIDIA driver: libcuda.so could not be loaded (is this a GPU machine?){CPU}"
            ));
        }
        let ordinal: usize = match (requested, std::env::var(DEVICE_ENV)) {
            (Some(ordinal), _) => ordinal,
            (None, Ok(v)) => v
                .parse()
                .map_err(|_| format!("{DEVICE_ENV}={v:?} is not a device number"))?,
            (None, Err(_)) => 0,
        };
        let count = CudaContext::device_count()
            .map_err(|e| format!("the NVIDIA driver failed to start: {e:?}{CPU}"))?;
        if count <= 0 {
            return Err(format!("the NVIDIA driver sees no CUDA device{CPU}"));
        }
        if ordinal >= count as usize {
            return Err(format!(
                "device {ordinal} asked for (argument or {DEVICE_ENV}), but this machine has \
                 {count} CUDA device(s)"
            ));
        }
        let ctx = CudaContext::new(ordinal)
            .map_err(|e| format!("cannot open CUDA device {ordinal}: {e:?}{CPU}"))?;
        // SAFETY: spmx queues all work on this context on the stream below,
        // but for kernels `launch_beside` queues on `side`, which it orders
        // with that stream's work before and after by events: no buffer is
        // used by two streams at once.
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx.default_stream();
        let opened =
            |what: &str, e| format!("cannot create a CUDA {what} on device {ordinal}: {e:?}");
        let side = ctx.new_stream().map_err(|e| opened("stream", e))?;
        let event = || {
            ctx.new_event(Some(
                cudarc::driver::sys::CUevent_flags::CU_EVENT_DISABLE_TIMING,
            ))
            .map_err(|e| opened("event", e))
        };
        let (fork, join) = (event()?, event()?);
        let name = ctx.name().unwrap_or_else(|_| "unknown GPU".into());
        let attribute = |a, default: u32| ctx.attribute(a).map_or(default, |n| n.max(1) as u32);
        use cudarc::driver::sys::CUdevice_attribute as Attr;
        let sm_count = attribute(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 1);
        let shared_optin = attribute(
            Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
            SHARED_DEFAULT_MAX,
        );
        let shared_per_sm = attribute(
            Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
            SHARED_DEFAULT_MAX,
        );
        let pool = MemPool::keeping(&ctx)?;
        let gpu = Gpu {
            pool,
            ctx,
            stream,
            side,
            fork,
            join,
            functions: Mutex::new(HashMap::new()),
            handles: Mutex::new(HashMap::new()),
            name,
            sm_count,
            shared_per_sm,
            shared_optin,
            ordinal,
        };
        // The smallest kernel, loaded now: a PTX this driver or device
        // cannot take is an error here, where the engine is chosen.
        gpu.kernel_function(utility::spin_ns())
            .map_err(|e| match e {
                Error::Unavailable { reason, .. } => reason,
                other => other.to_string(),
            })?;
        Ok(gpu)
    }

    /// The device's name (`NVIDIA H100 80GB HBM3`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Streaming multiprocessors on the device.
    pub fn sm_count(&self) -> u32 {
        self.sm_count
    }

    /// Bytes of shared memory `blocks` blocks may each take to run at once
    /// on one multiprocessor (the driver keeps 1 KiB a block for itself).
    pub fn shared_per_block(&self, blocks: u32) -> u32 {
        (self.shared_per_sm / blocks.max(1))
            .saturating_sub(SHARED_RESERVED_PER_BLOCK)
            .min(self.shared_optin)
    }

    /// Free and total device memory, in bytes. Free counts what the
    /// driver has not handed out plus what the memory pool keeps for reuse
    /// (freed by spmx, not yet reused): a budget taken after dropping a
    /// large buffer sees it, and nothing is handed back to the driver.
    pub fn memory(&self) -> Result<(usize, usize)> {
        self.sync()?;
        let (free, total) = self
            .ctx
            .mem_get_info()
            .map_err(|e| driver("cuMemGetInfo", e))?;
        let kept = self.pool_reserved()?.saturating_sub(self.pool_used()?);
        Ok(((free + kept).min(total), total))
    }

    /// Bytes the memory pool holds from the driver: in use, or kept for
    /// reuse. Unchanged across a repeated operation of the same sizes,
    /// since every buffer then comes from what the pool kept.
    pub fn pool_reserved(&self) -> Result<usize> {
        self.pool_attribute(CUmemPool_attribute::CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT)
    }

    /// Bytes of the memory pool that live buffers hold.
    fn pool_used(&self) -> Result<usize> {
        self.pool_attribute(CUmemPool_attribute::CU_MEMPOOL_ATTR_USED_MEM_CURRENT)
    }

    fn pool_attribute(&self, attribute: CUmemPool_attribute) -> Result<usize> {
        let Some(pool) = self.pool else {
            return Ok(0);
        };
        let mut value = 0u64;
        // SAFETY: the pool is the device's, and these attributes are u64.
        unsafe {
            cudarc::driver::sys::cuMemPoolGetAttribute(pool.0, attribute, (&raw mut value).cast())
        }
        .result()
        .map_err(|e| driver("cuMemPoolGetAttribute", e))?;
        Ok(usize::try_from(value).unwrap_or(usize::MAX))
    }

    /// Waits for the stream, then hands the driver back every byte the
    /// memory pool keeps and no buffer holds: the state of a fresh process.
    /// spmx calls it only when an allocation fails; benches call it to time
    /// a cold first call.
    pub fn trim_pool(&self) -> Result<()> {
        self.sync()?;
        let Some(pool) = self.pool else {
            return Ok(());
        };
        // SAFETY: the device's pool; trimming never touches live buffers.
        unsafe { cudarc::driver::sys::cuMemPoolTrimTo(pool.0, 0) }
            .result()
            .map_err(|e| driver("cuMemPoolTrimTo", e))
    }

    /// The stream all spmx work runs on (for events and vendor libraries).
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// The CUDA context.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// Copies `host` to a new device buffer.
    pub fn upload<T: DeviceRepr>(&self, host: &[T]) -> Result<CudaSlice<T>> {
        self.allocate::<T, _>(host.len(), || self.stream.clone_htod(host))
    }

    /// A new device buffer of `n` zero bytes-worth elements.
    pub fn zeros<T: DeviceRepr + ValidAsZeroBits>(&self, n: usize) -> Result<CudaSlice<T>> {
        self.allocate::<T, _>(n, || self.stream.alloc_zeros(n))
    }

    /// A new device buffer of `n` elements whose contents are undefined
    /// until a kernel writes them (no memset: for outputs a kernel fills).
    pub fn output<T: DeviceRepr>(&self, n: usize) -> Result<CudaSlice<T>> {
        // SAFETY: the buffer is only handed to kernels that write it before
        // anything reads it (the caller's use), and `T` is plain data.
        self.allocate::<T, _>(n, || unsafe { self.stream.alloc(n) })
    }

    /// Runs `alloc` (of `n` elements of `T`). Out of memory, the pool hands
    /// back what it keeps and `alloc` runs once more; out of memory again
    /// is [`Error::TooLarge`] with the numbers.
    fn allocate<T, R>(
        &self,
        n: usize,
        alloc: impl Fn() -> std::result::Result<R, DriverError>,
    ) -> Result<R> {
        match alloc() {
            Err(e) if e.0 == CUresult::CUDA_ERROR_OUT_OF_MEMORY && self.pool.is_some() => {
                self.trim_pool()?;
                alloc().map_err(|e| self.alloc_error::<T>(n, e))
            }
            other => other.map_err(|e| self.alloc_error::<T>(n, e)),
        }
    }

    /// Copies `dev[range]` into `host` (same length; waits for the stream).
    pub(crate) fn download_into<T: DeviceRepr>(
        &self,
        dev: &CudaSlice<T>,
        range: std::ops::Range<usize>,
        host: &mut [T],
    ) -> Result<()> {
        assert_eq!(range.len(), host.len(), "range and host lengths differ");
        if host.is_empty() {
            return Ok(());
        }
        self.stream
            .memcpy_dtoh(&dev.slice(range), host)
            .map_err(|e| self.run_error("copying a result back", e))
    }

    /// Copies a device buffer back (waits for the stream).
    pub fn download<T: DeviceRepr>(&self, dev: &CudaSlice<T>) -> Result<Vec<T>> {
        self.stream
            .clone_dtoh(dev)
            .map_err(|e| self.run_error("copying a result back", e))
    }

    /// Overwrites a device buffer with `host` (same length).
    pub fn copy_into<T: DeviceRepr>(&self, host: &[T], dev: &mut CudaSlice<T>) -> Result<()> {
        assert_eq!(host.len(), dev.len(), "host.len() != device buffer length");
        self.stream
            .memcpy_htod(host, dev)
            .map_err(|e| self.run_error("copying to the device", e))
    }

    /// Queues a device-to-device copy of `src` over `dst` (same length).
    pub fn copy_device<T>(&self, src: &CudaSlice<T>, dst: &mut CudaSlice<T>) -> Result<()> {
        assert_eq!(
            src.len(),
            dst.len(),
            "source and destination lengths differ"
        );
        self.stream
            .memcpy_dtod(src, dst)
            .map_err(|e| self.run_error("copying on the device", e))
    }

    /// A new buffer of `n` elements copied on the device, on spmx's stream,
    /// from memory another library (CuPy, PyTorch) holds at address `src`.
    ///
    /// # Safety
    /// `src` is a device address in this GPU's primary context (the one
    /// CuPy and the runtime API use), valid for `n` elements of `T`, with
    /// no work that writes it queued or running (the other library's
    /// stream synchronized) and nothing writing it until spmx's stream
    /// has been synchronized.
    pub unsafe fn copy_foreign<T: DeviceRepr>(&self, src: u64, n: usize) -> Result<CudaSlice<T>> {
        let mut dst = self.output::<T>(n)?;
        if n > 0 {
            self.context()
                .bind_to_thread()
                .map_err(|e| self.run_error("binding the context", e))?;
            let at = self.ptr_mut(&mut dst).addr();
            // SAFETY: `src` holds `n` elements of `T` (the contract), `dst`
            // is a buffer of spmx's just allocated with as many.
            unsafe {
                cudarc::driver::result::memcpy_dtod_async(
                    at,
                    src,
                    n * size_of::<T>(),
                    self.stream.cu_stream(),
                )
            }
            .map_err(|e| self.run_error("copying another library's array", e))?;
        }
        Ok(dst)
    }

    /// Waits for all work queued so far; a kernel that failed is reported here.
    pub fn sync(&self) -> Result<()> {
        self.stream
            .synchronize()
            .map_err(|e| self.run_error("running the queued kernels", e))
    }

    /// The device address of a buffer, for a kernel argument struct,
    /// borrowing the buffer: it cannot be dropped or written through
    /// [`Gpu::ptr_mut`] while the struct holding the address lives, so it
    /// is alive when the launch is queued (dropping it after frees it in
    /// stream order, once the kernel has run).
    pub fn ptr<'b, T>(&self, buf: &'b CudaSlice<T>) -> DevPtr<'b, T> {
        // Event tracking is off, so the guard records nothing.
        let (addr, _guard) = buf.device_ptr(&self.stream);
        // SAFETY: the address of `buf`, a live allocation of this context
        // holding `buf.len()` elements, borrowed for `'b`.
        unsafe { DevPtr::new(addr) }
    }

    /// The device address of a buffer a kernel writes, borrowing it
    /// exclusively (see [`Gpu::ptr`]).
    pub fn ptr_mut<'b, T>(&self, buf: &'b mut CudaSlice<T>) -> DevPtrMut<'b, T> {
        let (addr, _guard) = buf.device_ptr_mut(&self.stream);
        // SAFETY: as in `ptr`.
        unsafe { DevPtrMut::new(addr) }
    }

    /// The device address of `buf[start..]` (see [`Gpu::ptr`]).
    ///
    /// Panics if `start > buf.len()`.
    #[track_caller]
    pub(crate) fn ptr_at<'b, T>(&self, buf: &'b CudaSlice<T>, start: usize) -> DevPtr<'b, T> {
        assert!(start <= buf.len(), "start > buf.len()");
        let addr = self.ptr(buf).addr() + (start * size_of::<T>()) as u64;
        // SAFETY: within `buf`, `buf.len() - start` elements before its end.
        unsafe { DevPtr::new(addr) }
    }

    /// The kernel `name`, loaded on first use as a module of its own and
    /// cached.
    fn function(&self, name: &str) -> Result<CudaFunction> {
        let mut cache = self.functions.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(f) = cache.get(name) {
            return Ok(f.clone());
        }
        let ptx = entry_module(name).ok_or_else(|| {
            unavailable(format!(
                "the PTX has no entry point {name}, which gpu_kernels::kernels lists: \
                 it was built from other kernel sources than this spmx"
            ))
        })?;
        let module = self
            .ctx
            .load_module(Ptx::from_src(ptx))
            .map_err(|e| unavailable(load_error(&self.ctx, name, e)))?;
        let f = module
            .load_function(name)
            .map_err(|e| driver(&format!("loading kernel {name} from the PTX"), e))?;
        // Past 48 KiB of shared memory a kernel must opt in: each may take
        // what the device allows a block, set once here, so that launches
        // from several threads never race on the attribute.
        if self.shared_optin > SHARED_DEFAULT_MAX {
            use cudarc::driver::sys::CUfunction_attribute as Attr;
            let fixed = f
                .shared_size_bytes()
                .map_err(|e| driver(&format!("reading kernel {name}'s shared memory"), e))?;
            let dynamic = self.shared_optin.saturating_sub(fixed.max(0) as u32);
            f.set_attribute(
                Attr::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                dynamic as i32,
            )
            .map_err(|e| {
                driver(
                    &format!("letting kernel {name} take {dynamic} B of shared memory"),
                    e,
                )
            })?;
        }
        cache.insert(name.to_string(), f.clone());
        Ok(f)
    }

    /// The function of typed handle `kernel`, found on first use and cached
    /// by its type and family: a launch finds it by one lookup.
    fn kernel_function<K: Launchable>(&self, kernel: K) -> Result<CudaFunction> {
        let key = (TypeId::of::<K>(), kernel.family());
        let handles = || self.handles.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(f) = handles().get(&key) {
            return Ok(f.clone());
        }
        let f = self.function(Gpu::kernel_name(kernel)?)?;
        handles().insert(key, f.clone());
        Ok(f)
    }

    /// The PTX entry point of `kernel`, or an error naming what was not
    /// stamped: the semiring, or its value type.
    pub(crate) fn kernel_name<K: Launchable>(kernel: K) -> Result<&'static str> {
        kernel.entry().ok_or_else(|| {
            let family = kernel.family();
            let semiring = kernel.semiring().unwrap_or("?");
            let values: Vec<_> = (kernels::KERNELS.iter())
                .filter(|k| k.family == family && k.semiring == semiring)
                .map(|k| k.value)
                .collect();
            unavailable(if values.is_empty() {
                format!(
                    "semiring {semiring} has no GPU kernels: add it to for_each_semiring! \
                     (gpu-kernels/src/semiring.rs) to stamp {family} and every other family for it"
                )
            } else {
                format!(
                    "semiring {semiring} has GPU kernels for {} values only, not this value type: \
                     add its instance to for_each_semiring! (gpu-kernels/src/semiring.rs)",
                    values.join(" and ")
                )
            })
        })
    }

    /// Out of device memory becomes [`Error::TooLarge`] with the numbers.
    fn alloc_error<T>(&self, n: usize, e: DriverError) -> Error {
        if e.0 == CUresult::CUDA_ERROR_OUT_OF_MEMORY {
            let bytes = n * size_of::<T>();
            let (free, total) = self.ctx.mem_get_info().unwrap_or((0, 0));
            return Error::TooLarge(format!(
                "{bytes} bytes of GPU memory requested; {free} of {total} bytes free on {}",
                self.name
            ));
        }
        self.run_error("allocating or copying device memory", e)
    }

    pub(crate) fn run_error(&self, what: &str, e: DriverError) -> Error {
        unavailable(format!("{what} on {} failed: {e:?}", self.name))
    }
}
