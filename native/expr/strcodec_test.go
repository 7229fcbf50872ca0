package expr

import (
	"encoding/base64"
	"fmt"
	"testing"
)

func TestBase64(t *testing.T) {
	js := func(chunk string) string {
		return fmt.Sprintf(`{"class":"org.apache.spark.sql.catalyst.expressions.objects.StaticInvoke","dataType":"string","nullable":true,"fields":{`+
			`"staticObject":%q,"dataType":{"type":"string"},"functionName":"encode","arguments":[%s,%s],"inputTypes":[],`+
			`"propagateNull":true,"returnNullable":true,"isDeterministic":true}}`, sparkBase64, col(0, "binary"), lit("boolean", chunk))
	}
	long := make([]byte, 120)
	for i := range long {
		long[i] = byte(i)
	}
	in := column(t, "binary", []byte("Spark SQL"), []byte{}, nil, []byte{0xff}, []byte{0, 1}, long, long[:57], long[:58])
	enc := base64.StdEncoding.EncodeToString
	got, err := runRaw(t, js("false"), in)
	expectRows(t, "base64", got, err, "U3BhcmsgU1FM", "", "null", "/w==", "AAE=", enc(long), enc(long[:57]), enc(long[:58]))
	e := enc(long)
	got, err = runRaw(t, js("true"), in)
	expectRows(t, "base64 chunked", got, err, "U3BhcmsgU1FM", "", "null", "/w==", "AAE=", e[:76]+"\r\n"+e[76:152]+"\r\n"+e[152:],
		enc(long[:57]), enc(long[:57])+"\r\n"+enc(long[57:58]))
}
