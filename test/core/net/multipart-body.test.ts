import t from 'tap'
import { createMultipartBodyWatch, multipartBoundary } from '../../../core/net/multipart-body.ts'

t.test('multipartBoundary() reads the boundary parameter, quoted or not', async (t) => {
  t.equal(multipartBoundary('multipart/form-data; boundary=----WebKitFormBoundaryAbC'), '----WebKitFormBoundaryAbC')
  t.equal(multipartBoundary('multipart/form-data; charset=utf-8; BOUNDARY="a b;c"'), 'a b;c')
  t.equal(multipartBoundary('multipart/form-data'), undefined)
  t.equal(multipartBoundary(undefined), undefined)
})

const b = 'tgb'
const whole = `--${b}\r\ncontent-disposition: form-data; name="x"\r\n\r\nv\r\n--${b}\r\ncontent-disposition: form-data; name="f"; filename="a"\r\n\r\nsource --${b}-- is not a delimiter here\r\n--${b}--\r\n`

/** The watch after `text` arrived in chunks of `size` bytes. */
function watchOf (text: string, size: number) {
  const watch = createMultipartBodyWatch(b)
  const bytes = Buffer.from(text)
  for (let i = 0; i < bytes.length; i += size) watch.push(bytes.subarray(i, i + size))
  return watch
}

t.test('createMultipartBodyWatch() sees the close delimiter however the body is cut into chunks, and counts bytes', async (t) => {
  for (const size of [1, 2, 3, 7, 64, 10_000]) {
    const watch = watchOf(whole, size)
    t.ok(watch.closed, `chunks of ${size}`)
    t.equal(watch.bytes, Buffer.byteLength(whole))
  }
  t.ok(watchOf(`--${b}--\r\n`, 1).closed, 'a form of no parts: the delimiter alone')
  t.ok(watchOf(whole + 'an epilogue', 5).closed, 'an epilogue after it')
})

t.test('createMultipartBodyWatch() does not take a body cut before its close delimiter as closed', async (t) => {
  for (const cut of [
    whole.slice(0, whole.lastIndexOf(`\r\n--${b}--`)),
    whole.slice(0, whole.lastIndexOf('--\r\n')),
    whole.slice(0, whole.lastIndexOf(`\r\n--${b}--`)) + `\r\n--${b}\r\n`,
    `--${b}\r\ncontent-disposition: form-data; name="x"\r\n\r\nv`,
    `x--${b}--`
  ]) {
    for (const size of [1, 4, 10_000]) t.notOk(watchOf(cut, size).closed, `${JSON.stringify(cut.slice(-20))} in chunks of ${size}`)
  }
})
