package dist

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
)

// logCDFRef is a log CDF case against mpmath at 250 digits
// (testdata/logcdf_ref.py): the values of log P(X ≤ x) and log P(X > x),
// and for each the partials in x and in every parameter, mpmath's
// derivatives of the same expressions (0 for a discrete value and for a
// binomial's n).
type logCDFRef struct {
	name      string
	x         float64
	p         []float64
	lower, up float64
	dLower    []float64 // d/dx, then d/dp[i]
	dUp       []float64
}

// logCDFRefs are the families of logcdf_more.go at central points, far in
// both tails, at tiny and large shapes and next to the support's ends.
var logCDFRefs = []logCDFRef{
	{"HalfNormal", 0.3, []float64{1.0}, -1.4446744152580375, -0.26895563760890534, []float64{3.234528160039928, -0.9703584480119783}, []float64{-0.9981659688584833, 0.299449790657545}},
	{"HalfNormal", 1e-08, []float64{2.0}, -19.339619277157038, -3.989422811972074e-09, []float64{100000000.0, -0.5}, []float64{-0.3989422819929821, 1.9947114099649105e-09}},
	{"HalfNormal", 40.0, []float64{1.0}, 0.0, -803.9152948331938, []float64{0.0, 0.0}, []float64{-40.02496884720726, 1600.9987538882906}},
	{"HalfNormal", 3.0, []float64{0.5}, -1.9731752920221066e-09, -20.04362176941476, []float64{2.430353144724827e-08, -1.458211886834896e-07}, []float64{-12.316965209089197, 73.90179125453518}},
	{"HalfNormal", 1.5, []float64{1.0}, -0.1434252068611771, -2.0127972202639444, []float64{0.29898372282563246, -0.4484755842384487}, []float64{-1.938677166622543, 2.908015749933815}},
	{"HalfCauchy", 3.0, []float64{2.0}, -0.46893873024719157, -0.9826066085807821, []float64{0.15653961783335185, -0.23480942675002775}, []float64{-0.26164196028718467, 0.39246294043077695}},
	{"HalfCauchy", 10000000000.0, []float64{1.0}, -6.366197723878455e-11, -23.47743363522991, []float64{6.366197724081098e-21, -6.366197724081098e-11}, []float64{-1e-10, 1.0}},
	{"HalfCauchy", 1e-10, []float64{1.0}, -23.47743363522991, -6.366197723878455e-11, []float64{10000000000.0, -1.0}, []float64{-0.6366197724081099, 6.366197724081098e-11}},
	{"StudentT", 0.3, []float64{3.0, 0.0, 1.0}, -0.4973857548086112, -0.9367954081981967, []float64{0.5697140564941952, 0.004986967940528149, -0.5697140564941952, -0.17091421694825856}, []float64{-0.8840770620242215, -0.007738731237213261, 0.8840770620242215, 0.26522311860726644}},
	{"StudentT", -1000000.0, []float64{3.0, 0.0, 1.0}, -41.34880823485182, -1.1026577908396146e-18, []float64{2.9999999999928e-06, -12.906390566406188, -2.9999999999928e-06, 2.9999999999928}, []float64{-3.3079733725109045e-24, 1.4231332109666687e-17, 3.3079733725109045e-24, -3.3079733725109044e-18}},
	{"StudentT", 1000.0, []float64{3.0, 0.0, 1.0}, -1.102653821896219e-09, -20.62554599789672, []float64{3.3079535284273597e-12, 6.614420974324366e-09, -3.3079535284273597e-12, -3.30795352842736e-09}, []float64{-0.002999992800020366, -5.998637867416019, 0.002999992800020366, 2.9999928000203657}},
	{"StudentT", 2.5, []float64{5.0, 1.0, 2.0}, -0.2790687723588929, -1.4125885470228075, []float64{0.18222242869279254, 0.004251355854541017, -0.18222242869279254, -0.13666682151959442}, []float64{-0.5660870422171721, -0.013207141834154317, 0.5660870422171721, 0.4245652816628791}},
	{"StudentT", -4.0, []float64{0.5, 0.0, 1.0}, -1.8350216793144205, -0.17388925855285106, []float64{0.12271484877243677, -1.6816953403680504, -0.12271484877243677, 0.4908593950897471}, []float64{-0.02330646851060365, 0.3193939436571296, 0.02330646851060365, -0.0932258740424146}},
	{"StudentT", 1e-09, []float64{4.0, 0.0, 1.0}, -0.6931471798099453, -0.6931471813099453, []float64{0.7499999994375, 1.1389614571498808e-11, -0.7499999994375, -7.499999994375e-10}, []float64{-0.7500000005625, -1.138961458858323e-11, 0.7500000005625, 7.500000005625001e-10}},
	{"StudentT", 30.0, []float64{10000.0, 0.0, 1.0}, -1.0221635237127853e-189, -435.16666109325945, []float64{2.8164124559252912e-188, 1.848654706425415e-192, -2.8164124559252912e-188, -8.449237367775873e-187}, []float64{-27.553443168225073, -0.0018085704131865139, 27.553443168225073, 826.6032950467521}},
	{"StudentT", -45.0, []float64{200.0, 0.0, 1.0}, -244.44222475752395, -6.919753812988194e-107, []float64{4.046919645092137, -0.7518102893401996, -4.046919645092137, 182.11138402914617}, []float64{-2.800368764498314e-106, 5.2023421163056034e-107, 2.800368764498314e-106, -1.2601659440242415e-104}},
	{"StudentT", 0.0, []float64{3.0, 0.0, 1.0}, -0.6931471805599453, -0.6931471805599453, []float64{0.7351051938957227, 0.0, -0.7351051938957227, 0.0}, []float64{-0.7351051938957227, 0.0, 0.7351051938957227, 0.0}},
	{"StudentT", 1e+20, []float64{2.0, 0.0, 1.0}, -5e-41, -92.79655090032178, []float64{1e-60, 2.2699137725080443e-39, -1e-60, -1e-40}, []float64{-2e-20, -45.39827545016089, 2e-20, 2.0}},
	{"StudentT", 1e+60, []float64{3.0, 0.0, 1.0}, -1.1026577908435843e-180, -414.3675932998836, []float64{3.307973372530753e-240, 1.51335355270705e-178, -3.307973372530753e-240, -3.307973372530753e-180}, []float64{-3e-60, -137.24598558808208, 3e-60, 3.0}},
	{"StudentT", 7.0, []float64{0.05, 1.0, 0.1}, -0.45495583318357496, -1.0064233114272056, []float64{0.0048008305979572044, 3.310512901236944, -0.0048008305979572044, -0.28804983587743227}, []float64{-0.008333274052115527, -5.746382984396534, 0.008333274052115527, 0.4999964431269316}},
	{"InvGamma", 0.5, []float64{2.0, 1.0}, -0.9013877113318903, -0.5208858076643443, []float64{2.6666666666666665, 0.7241390510908857, -1.3333333333333333}, []float64{-1.8227153674224215, -0.4949622662152678, 0.9113576837112107}},
	{"InvGamma", 0.001, []float64{3.0, 1.0}, -986.875636623927, 0.0, []float64{998001.999996008, 5.985971941883678, -998.001999996008}, []float64{0.0, 0.0, 0.0}},
	{"InvGamma", 10000.0, []float64{2.0, 1.0}, -4.999666691664667e-09, -19.1138945909012, []float64{9.99900009999e-13, 5.066230175952352e-08, -9.999000099990002e-09}, []float64{-0.00019999333338888926, -10.133135818301502, 1.9999333338888925}},
	{"InvGamma", 2.0, []float64{0.01, 1.0}, -5.180222167358926, -0.005642646020085002, []float64{0.5383015558865815, 100.51011492582828, -1.076603111773163}, []float64{-0.0030460308869672526, -0.5687461073978534, 0.006092061773934505}},
	{"InvGamma", 1.0, []float64{100.0, 100.0}, -0.720104893025474, -0.6668971505852894, []float64{8.190034597861853, 0.08203698227292762, -0.08190034597861853}, []float64{-7.765651691136323, -0.0777860731247459, 0.07765651691136324}},
	{"Beta", 0.3, []float64{2.0, 3.0}, -1.0546911016101816, -0.4281709456438023, []float64{5.064599483204135, -0.7065567836541014, 0.37193528844350243}, []float64{-2.706766917293233, 0.3776181183776638, -0.1987802070966271}},
	{"Beta", 1e-300, []float64{0.01, 0.01}, -7.600740332979713, -0.0005002061520935866, []float64{1e+298, -740.7594317508012, 50.01609614741249}, []float64{-5.003312760526044e+294, 0.37062511173588053, -0.025024617208604646}},
	{"Beta", 1e-10, []float64{0.01, 0.02}, -0.6354016740083287, -0.7544326939369711, []float64{100000000.00970297, -56.32721989259448, 16.682534889836425}, []float64{-112640485.88540603, 63.44725416660323, -18.79128835609082}},
	{"Beta", 0.999999999999, []float64{0.05, 0.02}, -0.5304710464642431, -0.8875278158765938, []float64{13994965056.487438, -4.019627710698751, 29.27652578539464}, []float64{-20000442444.208683, 5.744518285718011, -41.8395806330181}},
	{"Beta", 0.999, []float64{2.0, 3.0}, -3.9970000079880155e-09, -19.33772175721722, []float64{1.1988000047916057e-05, -4.327084550962178e-09, 2.6611297956457026e-08}, []float64{-2999.249437077806, 1.0825830707197421, -6.657817825892319}},
	{"Beta", 1e-05, []float64{5.0, 2.0}, -55.77287618899114, -5.999950000000003e-25, []float64{499999.1666597221, -11.346259076083655, 1.4499916666329364}, []float64{-2.999970000000001e-19, 6.807698714354814e-24, -8.69987750021429e-25}},
	{"Beta", 0.5, []float64{1000.0, 1000.0}, -0.6931471805599453, -0.6931471805599453, []float64{71.35604458341729, -0.017844958672000283, 0.017844958672000283}, []float64{-71.35604458341729, 0.017844958672000283, -0.017844958672000283}},
	{"Beta", 0.2, []float64{50.0, 60.0}, -20.690898035849465, -1.0328973367564573e-09, []float64{178.6974500094555, -0.8431243806265023, 0.3934760233377713}, []float64{-1.8457612029526082e-07, 8.708609277533067e-10, -4.0642033679300085e-10}},
	{"Beta", 0.9, []float64{0.5, 0.5}, -0.22920282758111513, -1.5855614147303534, []float64{1.3343519537050683, -0.3481223974898976, 0.7452772144455252}, []float64{-5.179996254527232, 1.35142209677709, -2.893189588168882}},
	{"Beta", 0.5, []float64{0.01, 0.001}, -2.3979682679771903, -0.09530288057949061, []float64{0.03969972055152526, -90.924408993965, 909.0991122108334}, []float64{-0.003969653301411077, 9.091710856586293, -90.90261195702456}},
	{"Beta", 0.51, []float64{0.01, 0.001}, -2.397571261193481, -0.09534258673965584, []float64{0.03970690275366305, -90.88498065811025, 909.098836301388}, []float64{-0.0039721057552345685, 9.091737952367959, -90.94229137317103}},
	{"Beta", 0.7, []float64{1.0, 1.0}, -0.35667494393873245, -1.203972804325936, []float64{1.4285714285714286, -0.35667494393873245, 0.5159883447111154}, []float64{-3.333333333333333, 0.8322415358570422, -1.203972804325936}},
	{"Uniform", 0.3, []float64{0.0, 1.0}, -1.2039728043259361, -0.35667494393873234, []float64{3.3333333333333335, -2.3333333333333335, -1.0}, []float64{-1.4285714285714286, 1.0, 0.42857142857142855}},
	{"Uniform", -1.0, []float64{-2.0, 5.0}, -1.9459101490553132, -0.1541506798272583, []float64{1.0, -0.8571428571428571, -0.14285714285714285}, []float64{-0.16666666666666666, 0.14285714285714285, 0.023809523809523808}},
	{"Uniform", 4.9999, []float64{-2.0, 5.0}, -1.4285816327469146e-05, -11.156250521033826, []float64{0.14285918370262432, -2.0408454814613053e-06, -0.14285714285714285}, []float64{-10000.000000023307, 0.14285714285714285, 9999.857142880448}},
	{"PoissonLog", 3.0, []float64{0.9162907318741551}, -0.2776312408627553, -1.4170675689617414, []float64{0.0, -0.7054176072234764}, []float64{0.0, 2.2044345304403397}},
	{"PoissonLog", 60.0, []float64{1.6094379124341003}, -6.261195500180336e-44, -99.4793729503896, []float64{0.0, -3.511745265565659e-42}, []float64{0.0, 56.087455909410814}},
	{"PoissonLog", 0.0, []float64{3.0}, -20.085536923187668, -1.8921786966284627e-09, []float64{0.0, -20.085536923187668}, []float64{0.0, 3.800542511235663e-08}},
	{"Bernoulli", 0.0, []float64{0.3}, -0.35667494393873234, -1.2039728043259361, []float64{0.0, -1.4285714285714286}, []float64{0.0, 3.3333333333333335}},
	{"Bernoulli", 0.0, []float64{1e-10}, -1.00000000005e-10, -23.025850929940457, []float64{0.0, -1.0000000001}, []float64{0.0, 10000000000.0}},
	{"BernoulliLogit", 0.0, []float64{2.0}, -2.1269280110429727, -0.1269280110429725, []float64{0.0, -0.8807970779778824}, []float64{0.0, 0.11920292202211756}},
	{"BernoulliLogit", 0.0, []float64{-40.0}, -4.248354255291589e-18, -40.0, []float64{0.0, -4.248354255291589e-18}, []float64{0.0, 1.0}},
	{"BernoulliLogit", 0.0, []float64{40.0}, -40.0, -4.248354255291589e-18, []float64{0.0, -1.0}, []float64{0.0, 4.248354255291589e-18}},
	{"Binomial", 3.0, []float64{10.0, 0.4}, -0.9616003808697955, -0.48172097253184515, []float64{0.0, 0.0, -6.561218512009374}, []float64{0.0, 0.0, 4.060462673661763}},
	{"Binomial", 0.0, []float64{100.0, 0.5}, -69.31471805599453, -7.888609052210118e-31, []float64{0.0, 0.0, -200.0}, []float64{0.0, 0.0, 1.5777218104420236e-28}},
	{"Binomial", 99.0, []float64{100.0, 0.5}, -7.888609052210118e-31, -69.31471805599453, []float64{0.0, 0.0, -1.5777218104420236e-28}, []float64{0.0, 0.0, 200.0}},
	{"Binomial", 5.0, []float64{1000.0, 0.3}, -331.15840903003004, -1.5126216858066664e-144, []float64{0.0, 0.0, -1404.8180746729724}, []float64{0.0, 0.0, 2.124958284363507e-141}},
	{"Binomial", 50.0, []float64{60.0, 0.2}, -4.668792895962909e-27, -60.62889695309214, []float64{0.0, 0.0, -1.1393223321159342e-24}, []float64{0.0, 0.0, 244.0293149651386}},
	{"Binomial", 0.0, []float64{1.0, 0.7}, -1.203972804325936, -0.35667494393873245, []float64{0.0, 0.0, -3.333333333333333}, []float64{0.0, 0.0, 1.4285714285714286}},
	{"Binomial", 2.5, []float64{7.0, 0.5}, -1.4847344339331432, -0.2569104137850272, []float64{0.0, 0.0, -7.241379310344827}, []float64{0.0, 0.0, 2.121212121212121}},
	{"BinomialLogit", 3.0, []float64{10.0, -0.5}, -0.8208679431759738, -0.5799069825663458, []float64{0.0, 0.0, -1.4041371823151525}, []float64{0.0, 0.0, 1.1034725250766837}},
	{"BinomialLogit", 90.0, []float64{100.0, 3.0}, -3.8877226017052773, -0.020704834683535914, []float64{0.0, 0.0, -5.843375041822275}, []float64{0.0, 0.0, 0.12224730217220064}},
	{"BinomialLogit", 2.0, []float64{50.0, -10.0}, -1.830912118020606e-09, -20.11845157003322, []float64{0.0, 0.0, -5.489557377165009e-09}, []float64{0.0, 0.0, 2.9982637168158055}},
	{"NegBinomial", 3.0, []float64{2.5, 1.5}, -0.30685025102250413, -1.3309004197981262, []float64{0.0, -0.18752143102068808, -0.0039636429737536436}, []float64{0.0, 0.5221439449257279, 0.011036563486786454}},
	{"NegBinomial", 0.0, []float64{10.0, 0.5}, -1.5222612188617115, -0.2461792092772736, []float64{0.0, -0.047619047619047616, -2.0921414853424705}, []float64{0.0, 0.013291846892752, 0.5839769103240843}},
	{"NegBinomial", 200.0, []float64{5.0, 2.0}, -2.482504798726237e-28, -63.56311455387631, []float64{0.0, -2.8164766982293446e-27, 6.135681415517142e-27}, []float64{0.0, 11.345302130632204, -24.715688036797896}},
	{"NegBinomial", 1.0, []float64{100.0, 50.0}, -51.394497733843956, -4.782480787238315e-23, []float64{0.0, -0.3300970873786408, -0.4190006381826728}, []float64{0.0, 1.5786829783116767e-23, 2.0038625019492254e-23}},
	{"NegBinomial", 10.0, []float64{10.0, 10000.0}, -0.5394998949427419, -0.8747644109101869, []float64{0.0, -0.21447512672028374, -3.571014459446729e-12}, []float64{0.0, 0.2999027598456733, 4.993385984723582e-12}},
	{"NegBinomial", 5.0, []float64{1000.0, 0.1}, -0.6997040762868434, -0.6866329978021682, []float64{0.0, -9.99445629990359e-05, -6.063564991405511}, []float64{0.0, 9.864668061211299e-05, 5.984823397384199}},
	{"StudentT", -3.0, []float64{1000000.0, 0.0, 1.0}, -6.607701598412306, -0.0013508432487595724, []float64{3.283068702703741, -2.462295617530241e-11, -3.283068702703741, 9.849206108111224}, []float64{-0.004437907976425957, 3.328422994120391e-14, 0.004437907976425957, -0.013313723929277871}},
	{"StudentT", 0.7, []float64{0.01, 0.0, 1.0}, -0.6674256502989402, -0.7195478139396092, []float64{0.013423224674182064, 2.03234591880255, -0.013423224674182064, -0.009396257271927444}, []float64{-0.014141426720744, -2.141085438078661, 0.014141426720744, 0.009898998704520798}},
	{"StudentT", 12.0, []float64{30.0, 2.0, 0.5}, -3.3745418328856433e-19, -42.532857204996745, []float64{9.439304514892365e-19, 2.974350493909995e-19, -9.439304514892365e-19, -1.887860902978473e-17}, []float64{-2.7972106977321456, -0.8814086892994786, 2.7972106977321456, 55.94421395464292}},
	{"InvGamma", 1e-10, []float64{0.5, 1.0}, -10000000012.08529, 0.0, []float64{1.0000000000499999e+20, 24.98936095606188, -10000000000.5}, []float64{0.0, 0.0, 0.0}},
	{"InvGamma", 10000000000.0, []float64{0.5, 3.0}, -1.9544291462582528e-05, -10.842837083100928, []float64{9.772241224791139e-16, 0.0004292697085366196, -3.257413741597046e-06}, []float64{-4.999999999e-11, -21.963728615384255, 0.16666666663333332}},
	{"Beta", 0.5, []float64{0.001, 0.001}, -0.6931471805599453, -0.6931471805599453, []float64{0.003994465225442613, -500.0008203680643, 500.0008203680643}, []float64{-0.003994465225442613, 500.0008203680643, -500.0008203680643}},
	{"Beta", 1e-200, []float64{0.5, 0.5}, -230.71009200469402, -6.366197723675814e-101, []float64{5e+199, -461.13072423768926, 1.3862943611198906}, []float64{-3.183098861837907e+99, 2.9356493669589565e-98, -8.825424006106063e-101}},
	{"Beta", 0.99, []float64{300.0, 2.0}, -1.6288063949305438, -0.21835948359353233, []float64{228.0303030303031, -0.007550335853501449, 0.992331042775343}, []float64{-55.64719192132123, 0.001842540148071431, -0.2421627093109027}},
	{"Beta", 0.001, []float64{0.3, 4000.0}, -0.00202072392930606, -6.205309642753624, []float64{9.289077355268054, -0.010265167577432704, 2.3213108867392705e-06}, []float64{-4592.26272876791, 5.0748147170576186, -0.0011475918500140775}},
	{"Binomial", 500.0, []float64{10000.0, 0.05}, -0.6696356887175141, -0.7172247998584402, []float64{0.0, 0.0, -357.5277638476022}, []float64{0.0, 0.0, 374.9535424034634}},
	{"Binomial", 0.0, []float64{20.0, 1e-08}, -2.0000000100000002e-07, -15.424948565398374, []float64{0.0, 0.0, -20.000000200000002}, []float64{0.0, 0.0, 99999990.50000024}},
	{"Binomial", 19.0, []float64{20.0, 1e-08}, -1.0000000000000005e-160, -368.4136148790473, []float64{0.0, 0.0, -2.000000000000001e-151}, []float64{0.0, 0.0, 2000000000.0}},
	{"NegBinomial", 0.0, []float64{5.0, 100000.0}, -4.99987500416651, -0.006761597431443193, []float64{0.0, -0.999950002499875, -1.2499166713539166e-09}, []float64{0.0, 0.0067841694325661605, 8.480070457377837e-12}},
	{"NegBinomial", 30.0, []float64{10.0, 1000000.0}, -7.985506705535706e-08, -16.34305254705208, []float64{0.0, -1.7119227744049704e-07, 1.7118819745831498e-17}, []float64{0.0, 2.1437871999598723, -2.1437361076225963e-10}},
	{"NegBinomial", 2.0, []float64{10.0, 500.0}, -5.82448022298705, -0.0029587120259093364, []float64{0.0, -0.8039418987658838, -0.0001274645495856825}, []float64{0.0, 0.0023821548813814306, 3.776893572343119e-07}},
	{"NegBinomial", 15.0, []float64{10.0, 200.0}, -0.054489459741163454, -2.9368690156421344, []float64{0.0, -0.03840346884064182, 2.2392389183741276e-05}, []float64{0.0, 0.6857597486835776, -0.00039985448301004683}},
	{"NegBinomial", 3.0, []float64{2.0, 47.0}, -0.15849306117506679, -1.9202445455333312, []float64{0.0, -0.21128848042280174, 8.862160498485516e-05}, []float64{0.0, 1.2302539492425428, -0.0005160105241074219}},
	{"NegBinomial", 3.0, []float64{2.0, 49.0}, -0.15832280266658869, -1.9212364734678071, []float64{0.0, -0.2112640730436412, 8.177450527244353e-05}, []float64{0.0, 1.2315422845457744, -0.0004766961063939253}},
	{"NegBinomial", 1400.0, []float64{1500.0, 100000.0}, -5.295930145333304, -0.005024552312232943, []float64{0.0, -0.07325406851571958, -5.416673054790674e-07}, []float64{0.0, 0.00036899514072707794, 2.7284846789037378e-09}},
	{"NegBinomial", 1600.0, []float64{1500.0, 100000.0}, -0.005375838896974066, -5.228527358587978, []float64{0.0, -0.000400885347140792, 2.9601050635581095e-09}, []float64{0.0, 0.07437141862599772, -5.49152555534786e-07}},
	{"StudentT", -3.0, []float64{10000.0, 0.0, 1.0}, -6.605265315275635, -0.0013541405295786793, []float64{3.2801061027397536, -2.459489418581667e-07, -3.2801061027397536, 9.840318308219262}, []float64{-0.004444733332621701, 3.332750300628808e-10, 0.004444733332621701, -0.013334199997865103}},
	{"StudentT", -3.0, []float64{100.0, 0.0, 1.0}, -6.37480169145589, -0.0017054110587795372, []float64{3.0083433336182517, -0.002204375089275303, -3.0083433336182517, 9.025030000854755}, []float64{-0.005134839251054853, 3.7625731099131015e-06, 0.005134839251054853, -0.015404517753164558}},
	{"StudentT", 5.0, []float64{100000.0, 0.0, 1.0}, -2.8713512515536973e-07, -15.063313056198316, []float64{1.4888545518274636e-06, 4.83840512623418e-15, -1.4888545518274636e-06, -7.444272759137318e-06}, []float64{-5.185204482630367, -1.6850618429138913e-08, 5.185204482630367, 25.926022413151834}},
	{"StudentT", -20.0, []float64{1000.0, 0.0, 1.0}, -171.98528267046822, -2.0311442497623856e-75, []float64{14.321182119762145, -0.025521587479831836, -14.321182119762145, 286.42364239524295}, []float64{-2.9088386712354776e-74, 5.183802565446813e-77, 2.9088386712354776e-74, -5.817677342470955e-73}},
	{"NegBinomial", 2000.0, []float64{20.0, 3.0}, -1.2006479804233476e-117, -269.21959448556197, []float64{0.0, -1.556445177836688e-116, 9.818441031178265e-116}, []float64{0.0, 12.963376470161442, -81.77618412114673}},
	{"Binomial", 3.0, []float64{100000.0, 2e-05}, -0.1541712042021304, -1.9457870116515432, []float64{0.0, 0.0, -21052.587253389593}, []float64{0.0, 0.0, 126297.37811099063}},
	{"Binomial", 0.0, []float64{1000000.0, 1e-06}, -1.0000005000003334, -0.4586748543986496, []float64{0.0, 0.0, -1000001.000001}, []float64{0.0, 0.0, 581976.8285093}},
	{"Gamma", 3e-10, []float64{0.5, 1.0}, -10.842837083100928, -1.9544291462582528e-05, []float64{1666666666.3333333, -21.963728615384255, 0.4999999999}, []float64{-32574.13741597046, 0.0004292697085366196, -9.772241224791138e-06}},
	{"Gamma", 10000000000.0, []float64{0.5, 1.0}, 0.0, -10000000012.08529, []float64{0.0, 0.0, 0.0}, []float64{-1.00000000005, 24.98936095606188, -10000000000.5}},
}

// Tolerances against the mpmath references: the values' relative error
// and the partials'.
const (
	logCDFValueTol = 1e-13
	logCDFGradTol  = 1e-10
)

// logCDFTols returns the tolerances of a reference case: the defaults but
// for a Student t near its normal limit. With ν ≥ 10⁵ degrees of freedom
// the incomplete beta function's fraction runs near its split for about
// √ν terms and its value keeps about 3e-12 relative (3e-13 of log P at
// ν = 10⁶); from ν = 10⁴ on the ν partial, of order 1/ν², is a sum of
// terms of order 1/ν and keeps an absolute accuracy of 1e-16 (a relative
// 3e-10 at ν = 10⁴, 1.6e-6 at ν = 10⁶, where it is 2.5e-11).
func logCDFTols(c logCDFRef, partial int) (rel, abs float64) {
	nearNormal := c.name == "StudentT" && c.p[0] >= 1e4
	switch {
	case partial < 0 && nearNormal && c.p[0] >= 1e5:
		return 3e-12, 0
	case partial < 0:
		return logCDFValueTol, 0
	case nearNormal && partial == 1:
		return logCDFGradTol, 1e-16
	}
	return logCDFGradTol, 0
}

// TestLogCDFMore checks the values and partials of the families of
// logcdf_more.go against mpmath.
func TestLogCDFMore(t *testing.T) {
	worstV, worstG := map[string]float64{}, map[string]float64{}
	for _, c := range logCDFRefs {
		for _, upper := range []bool{false, true} {
			k, ok := LogCDF(c.name, upper)
			if !ok {
				t.Fatalf("no log CDF for %s", c.name)
			}
			want, wantD := c.lower, c.dLower
			if upper {
				want, wantD = c.up, c.dUp
			}
			dp := make([]float64, len(c.p))
			got, dx := k(c.x, c.p, dp)
			tol, _ := logCDFTols(c, -1)
			if e := relErr(got, want); !(e <= tol) && !(want == 0 && math.Abs(got) < 1e-300) {
				t.Errorf("%s%v at %g, upper %v: %.17g, want %.17g (relative error %.2g)", c.name, c.p, c.x, upper, got, want, e)
			} else if want != 0 {
				worstV[c.name] = math.Max(worstV[c.name], e)
			}
			for i, g := range append([]float64{dx}, dp...) {
				e := relErr(g, wantD[i])
				rel, abs := logCDFTols(c, i)
				if math.Abs(g-wantD[i]) <= max(abs, 1e-300) {
					e = 0
				}
				if !(e <= rel) {
					t.Errorf("%s%v at %g, upper %v: partial %d %.17g, want %.17g (relative error %.2g)", c.name, c.p, c.x, upper, i, g, wantD[i], e)
				} else {
					worstG[c.name] = math.Max(worstG[c.name], e)
				}
			}
		}
	}
	for _, name := range LogCDFNames() {
		if v, ok := worstV[name]; ok {
			t.Logf("%s: worst relative error of a value %.2g, of a partial %.2g", name, v, worstG[name])
		}
	}
}

// TestLogCDFMoreGradients checks every partial of the families of
// logcdf_more.go against central differences (gonum/diff/fd) on a grid
// through both tails, at tiny and large shapes and next to the support's
// ends (the step shrinks to stay inside it).
func TestLogCDFMoreGradients(t *testing.T) {
	for _, c := range []struct {
		name string
		x    float64
		p    []float64
	}{
		{"HalfNormal", 0.3, []float64{1}}, {"HalfNormal", 1e-6, []float64{2}}, {"HalfNormal", 30, []float64{1}}, {"HalfNormal", 3, []float64{0.5}},
		{"HalfCauchy", 3, []float64{2}}, {"HalfCauchy", 1e8, []float64{1}}, {"HalfCauchy", 1e-6, []float64{1}},
		{"StudentT", 0.3, []float64{3, 0, 1}}, {"StudentT", -1e6, []float64{3, 0, 1}}, {"StudentT", 1e3, []float64{3, 0, 1}},
		{"StudentT", 2.5, []float64{5, 1, 2}}, {"StudentT", -4, []float64{0.5, 0, 1}}, {"StudentT", 1e-3, []float64{4, 0, 1}},
		{"StudentT", 30, []float64{1e4, 0, 1}}, {"StudentT", -45, []float64{200, 0, 1}}, {"StudentT", 1e20, []float64{2, 0, 1}},
		{"StudentT", 7, []float64{0.05, 1, 0.1}}, {"StudentT", -3, []float64{300, 0, 1}}, {"StudentT", 0.7, []float64{0.01, 0, 1}},
		{"StudentT", 1e60, []float64{3, 0, 1}},
		{"InvGamma", 0.5, []float64{2, 1}}, {"InvGamma", 1e-3, []float64{3, 1}}, {"InvGamma", 1e4, []float64{2, 1}},
		{"InvGamma", 2, []float64{0.01, 1}}, {"InvGamma", 1, []float64{100, 100}}, {"InvGamma", 0.01, []float64{0.5, 1}},
		{"Beta", 0.3, []float64{2, 3}}, {"Beta", 1e-10, []float64{0.01, 0.02}}, {"Beta", 1 - 1e-5, []float64{0.05, 0.02}},
		{"Beta", 0.999, []float64{2, 3}}, {"Beta", 1e-5, []float64{5, 2}}, {"Beta", 0.5, []float64{1e3, 1e3}},
		{"Beta", 0.2, []float64{50, 60}}, {"Beta", 0.9, []float64{0.5, 0.5}}, {"Beta", 0.51, []float64{0.01, 0.001}},
		{"Beta", 1e-100, []float64{0.02, 5}}, {"Beta", 1e-3, []float64{0.3, 4000}},
		{"Uniform", 0.3, []float64{0, 1}}, {"Uniform", 4.9999, []float64{-2, 5}}, {"Uniform", -1.99, []float64{-2, 5}},
		{"PoissonLog", 3, []float64{0.9}}, {"PoissonLog", 60, []float64{1.6}}, {"PoissonLog", 0, []float64{3}}, {"PoissonLog", 2, []float64{-5}},
		{"Bernoulli", 0, []float64{0.3}}, {"Bernoulli", 0, []float64{1e-10}}, {"Bernoulli", 0, []float64{1 - 1e-4}},
		{"BernoulliLogit", 0, []float64{2}}, {"BernoulliLogit", 0, []float64{-40}}, {"BernoulliLogit", 0, []float64{40}},
		{"Binomial", 3, []float64{10, 0.4}}, {"Binomial", 0, []float64{100, 0.5}}, {"Binomial", 99, []float64{100, 0.5}},
		{"Binomial", 5, []float64{1000, 0.3}}, {"Binomial", 50, []float64{60, 0.2}}, {"Binomial", 0, []float64{1, 0.7}},
		{"Binomial", 500, []float64{1e4, 0.05}}, {"Binomial", 0, []float64{20, 1e-8}}, {"Binomial", 3, []float64{1e5, 2e-5}},
		{"BinomialLogit", 3, []float64{10, -0.5}}, {"BinomialLogit", 90, []float64{100, 3}}, {"BinomialLogit", 2, []float64{50, -10}},
		{"NegBinomial", 3, []float64{2.5, 1.5}}, {"NegBinomial", 0, []float64{10, 0.5}}, {"NegBinomial", 200, []float64{5, 2}},
		{"NegBinomial", 1, []float64{100, 50}}, {"NegBinomial", 5, []float64{1e3, 0.1}}, {"NegBinomial", 1e4, []float64{50, 3}},
		{"NegBinomial", 2, []float64{10, 500}}, {"NegBinomial", 15, []float64{10, 200}}, {"NegBinomial", 3, []float64{2, 47}},
		{"NegBinomial", 3, []float64{2, 49}},
	} {
		u, _ := LookupUnivariate(c.name)
		discrete := u.Support == Count || u.Support == Binary || u.Support == BoundedCount
		for _, upper := range []bool{false, true} {
			k, _ := LogCDF(c.name, upper)
			dp := make([]float64, len(c.p))
			lp, dx := k(c.x, c.p, dp)
			check := func(what string, got float64, f func(float64) float64, at, step float64) {
				want := fd.Derivative(f, at, &fd.Settings{Formula: fd.Central, Step: step})
				if !(math.Abs(got-want) <= 1e-6*math.Max(math.Abs(want), 1e-8)) {
					t.Errorf("%s%v at %g, upper %v (log P %g): d/d%s %.10g, central difference %.10g", c.name, c.p, c.x, upper, lp, what, got, want)
				}
			}
			if !discrete {
				step := fdStep(c.x)
				switch c.name { // stay inside the support
				case "Beta":
					step = math.Min(1e-6*c.x, 1e-4*(1-c.x))
				case "Uniform":
					step = 1e-4 * math.Min(c.x-c.p[0], c.p[1]-c.x)
				}
				check("x", dx, func(x float64) float64 { lp, _ := k(x, c.p, make([]float64, len(c.p))); return lp }, c.x, step)
			}
			for i := range c.p {
				if u.Params[i].Support == Count {
					continue // a binomial's n
				}
				step := fdStep(c.p[i])
				switch {
				case c.name == "Bernoulli":
					step = 1e-4 * math.Min(c.p[0], 1-c.p[0])
				case c.name == "Uniform":
					step = 1e-4 * math.Min(c.x-c.p[0], c.p[1]-c.x)
				case u.Params[i].Name == "mu" && u.Params[i].Support == Real:
					step = 1e-6 * math.Max(1, math.Abs(c.x)) // on the scale of x − mu
				}
				check(u.Params[i].Name, dp[i], func(v float64) float64 {
					q := append([]float64(nil), c.p...)
					q[i] = v
					lp, _ := k(c.x, q, make([]float64, len(q)))
					return lp
				}, c.p[i], step)
			}
		}
	}
}

// TestLogCDFMoreEdges: invalid parameters give NaN, and values at or past
// the ends of a support give log 1 = 0 or log 0 = −Inf with zero partials.
func TestLogCDFMoreEdges(t *testing.T) {
	for _, c := range []struct {
		name string
		p    []float64
	}{
		{"HalfNormal", []float64{0}}, {"HalfCauchy", []float64{-1}}, {"StudentT", []float64{0, 0, 1}}, {"StudentT", []float64{3, 0, -1}},
		{"StudentT", []float64{math.NaN(), 0, 1}}, {"InvGamma", []float64{2, math.Inf(1)}}, {"InvGamma", []float64{-1, 1}},
		{"Beta", []float64{0, 1}}, {"Beta", []float64{1, -2}}, {"Uniform", []float64{1, 1}}, {"Uniform", []float64{2, 1}},
		{"Uniform", []float64{0, math.Inf(1)}}, {"PoissonLog", []float64{math.Inf(1)}}, {"Bernoulli", []float64{1.5}},
		{"Bernoulli", []float64{0}}, {"BernoulliLogit", []float64{math.NaN()}}, {"Binomial", []float64{2.5, 0.5}},
		{"Binomial", []float64{3, 1.2}}, {"BinomialLogit", []float64{-1, 0}}, {"NegBinomial", []float64{-1e-300, 1}},
		{"NegBinomial", []float64{1, math.Inf(1)}},
	} {
		for _, upper := range []bool{false, true} {
			k, _ := LogCDF(c.name, upper)
			dp := make([]float64, len(c.p))
			if lp, dx := k(0.5, c.p, dp); !math.IsNaN(lp) || !math.IsNaN(dx) || !math.IsNaN(dp[0]) {
				t.Errorf("%s%v, upper %v: log P = %g, partials %g %v, want NaN", c.name, c.p, upper, lp, dx, dp)
			}
		}
	}
	for _, c := range []struct {
		name      string
		x         float64
		p         []float64
		lower, up float64
	}{
		{"HalfNormal", 0, []float64{1}, math.Inf(-1), 0}, {"HalfCauchy", -1, []float64{1}, math.Inf(-1), 0},
		{"HalfNormal", math.Inf(1), []float64{1}, 0, math.Inf(-1)}, {"HalfCauchy", math.Inf(1), []float64{1}, 0, math.Inf(-1)},
		{"NegBinomial", math.Inf(1), []float64{3, 2}, 0, math.Inf(-1)}, {"Normal", math.Inf(-1), []float64{0, 1}, math.Inf(-1), 0},
		{"StudentT", math.Inf(1), []float64{3, 0, 1}, 0, math.Inf(-1)}, {"StudentT", math.Inf(-1), []float64{3, 0, 1}, math.Inf(-1), 0},
		{"InvGamma", 0, []float64{2, 1}, math.Inf(-1), 0}, {"InvGamma", math.Inf(1), []float64{2, 1}, 0, math.Inf(-1)},
		{"Beta", 0, []float64{2, 3}, math.Inf(-1), 0}, {"Beta", 1, []float64{2, 3}, 0, math.Inf(-1)},
		{"Uniform", -2, []float64{-2, 5}, math.Inf(-1), 0}, {"Uniform", 5, []float64{-2, 5}, 0, math.Inf(-1)},
		{"PoissonLog", -1, []float64{0.5}, math.Inf(-1), 0}, {"PoissonLog", 0, []float64{math.Log(3)}, -3, Log1mexp(3)},
		{"Bernoulli", -1, []float64{0.3}, math.Inf(-1), 0}, {"Bernoulli", 1, []float64{0.3}, 0, math.Inf(-1)},
		{"Bernoulli", 0, []float64{0.25}, math.Log(0.75), math.Log(0.25)},
		{"BernoulliLogit", 1, []float64{0.3}, 0, math.Inf(-1)}, {"BernoulliLogit", 0, []float64{0}, -math.Ln2, -math.Ln2},
		{"Binomial", -1, []float64{5, 0.3}, math.Inf(-1), 0}, {"Binomial", 5, []float64{5, 0.3}, 0, math.Inf(-1)},
		{"Binomial", 0, []float64{5, 0.5}, -5 * math.Ln2, math.Log1p(-1.0 / 32)}, {"Binomial", 4, []float64{5, 0.5}, math.Log1p(-1.0 / 32), -5 * math.Ln2},
		{"Binomial", 0, []float64{0, 0.3}, 0, math.Inf(-1)}, {"BinomialLogit", 7, []float64{7, 2}, 0, math.Inf(-1)},
		{"NegBinomial", -1, []float64{3, 2}, math.Inf(-1), 0}, {"NegBinomial", 0, []float64{3, 2}, -2 * math.Log(2.5), Log1mexp(2 * math.Log(2.5))},
	} {
		for _, upper := range []bool{false, true} {
			k, _ := LogCDF(c.name, upper)
			want := c.lower
			if upper {
				want = c.up
			}
			dp := make([]float64, len(c.p))
			got, _ := k(c.x, c.p, dp)
			if !(got == want || math.Abs(got-want) <= 1e-15*math.Abs(want)) {
				t.Errorf("%s%v at %g, upper %v: %.17g, want %.17g", c.name, c.p, c.x, upper, got, want)
			}
			if math.IsInf(want, 0) || want == 0 {
				for i, d := range dp {
					if d != 0 {
						t.Errorf("%s%v at %g, upper %v: partial %d is %g, want 0", c.name, c.p, c.x, upper, i, d)
					}
				}
			}
		}
	}
}

// TestLogCDFMoreAllocs: the kernels allocate nothing, as the densities'.
func TestLogCDFMoreAllocs(t *testing.T) {
	for _, c := range []struct {
		name string
		x    float64
		p    []float64
	}{
		{"StudentT", -40, []float64{3, 0, 1}}, {"InvGamma", 0.5, []float64{2, 1}}, {"Beta", 0.3, []float64{2, 3}},
		{"PoissonLog", 3, []float64{0.9}}, {"NegBinomial", 3, []float64{2, 49}}, {"BinomialLogit", 3, []float64{10, -0.5}},
	} {
		k, _ := LogCDF(c.name, true)
		dp := make([]float64, len(c.p))
		if n := testing.AllocsPerRun(20, func() { k(c.x, c.p, dp) }); n != 0 {
			t.Errorf("%s: %v allocations per call", c.name, n)
		}
	}
}

// TestLogCDFSupportEnds: every family's log CDF at the ends of its closed
// support is the limit there, computed rather than refused: log P(X ≤ lo)
// = −Inf and log P(X > lo) = 0 at the lower end of a continuous family
// (a discrete family's lower end has its mass), log P(X ≤ hi) = 0 and
// log P(X > hi) = −Inf at a finite upper end, with zero partials, and
// ZeroAtEnd takes exactly those −Inf for values; one just outside the
// support is not.
func TestLogCDFSupportEnds(t *testing.T) {
	inf := math.Inf(1)
	cases := []struct {
		name   string
		p      []float64
		lo, hi float64
	}{
		{"Normal", []float64{0, 1}, -inf, inf}, {"HalfNormal", []float64{1}, 0, inf}, {"LogNormal", []float64{0, 1}, 0, inf},
		{"Cauchy", []float64{0, 1}, -inf, inf}, {"HalfCauchy", []float64{1}, 0, inf}, {"StudentT", []float64{3, 0, 1}, -inf, inf},
		{"Laplace", []float64{0, 1}, -inf, inf}, {"Exponential", []float64{2}, 0, inf}, {"Weibull", []float64{1.5, 2}, 0, inf},
		{"Weibull", []float64{0.5, 2}, 0, inf}, {"Gamma", []float64{2, 3}, 0, inf}, {"Gamma", []float64{0.3, 3}, 0, inf},
		{"InvGamma", []float64{2, 1}, 0, inf}, {"Beta", []float64{2, 3}, 0, 1}, {"Beta", []float64{0.5, 0.5}, 0, 1},
		{"BetaProportion", []float64{0.3, 5}, 0, 1}, {"Uniform", []float64{-1, 2}, -1, 2}, {"Logistic", []float64{0, 1}, -inf, inf},
		{"Gumbel", []float64{0, 1}, -inf, inf}, {"ChiSquare", []float64{3}, 0, inf}, {"InvChiSquare", []float64{3}, 0, inf},
		{"ScaledInvChiSquare", []float64{3, 1}, 0, inf}, {"Rayleigh", []float64{1}, 0, inf}, {"Pareto", []float64{1.5, 2}, 1.5, inf},
		{"ParetoType2", []float64{1, 2, 3}, 1, inf}, {"Frechet", []float64{2, 1}, 0, inf}, {"GEV", []float64{0, 1, 0.5}, -2, inf}, {"GEV", []float64{0, 1, -0.5}, -inf, 2},
		{"GEV", []float64{0, 1, 0}, -inf, inf}, {"GeneralizedPareto", []float64{1, 2, 0.5}, 1, inf},
		{"GeneralizedPareto", []float64{1, 2, -0.5}, 1, 5}, {"LogLogistic", []float64{1, 2}, 0, inf},
		{"ExpModNormal", []float64{0, 1, 2}, -inf, inf}, {"SkewNormal", []float64{0, 1, 2}, -inf, inf},
		{"VonMises", []float64{0.5, 2}, -inf, inf}, {"SkewDoubleExponential", []float64{0, 1, 0.3}, -inf, inf},
		{"Poisson", []float64{2}, 0, inf}, {"PoissonLog", []float64{0.5}, 0, inf}, {"Bernoulli", []float64{0.3}, 0, 1},
		{"BernoulliLogit", []float64{0.3}, 0, 1}, {"Binomial", []float64{5, 0.3}, 0, 5}, {"BinomialLogit", []float64{5, 0.3}, 0, 5},
		{"BetaBinomial", []float64{5, 2, 3}, 0, 5}, {"NegBinomial", []float64{3, 2}, 0, inf}, {"NegBinomialLog", []float64{1, 2}, 0, inf},
		{"BetaNegBinomial", []float64{2.5, 0.5, 3}, 0, inf},
		{"Wald", []float64{1.5, 2}, 0, inf}, {"Kumaraswamy", []float64{2, 3}, 0, 1}, {"LogitNormal", []float64{0.5, 2}, 0, 1},
		{"AsymmetricLaplace", []float64{2, 0.5, 1}, -inf, inf}, {"Moyal", []float64{1, 2}, -inf, inf},
		{"ZeroInflatedPoisson", []float64{0.7, 2}, 0, inf}, {"ZeroInflatedNegBinomial", []float64{0.7, 3, 2}, 0, inf},
		{"HurdlePoisson", []float64{0.7, 2}, 0, inf}, {"HurdleNegBinomial", []float64{0.7, 3, 2}, 0, inf},
		{"ZeroInflatedBinomial", []float64{0.7, 5, 0.3}, 0, 5}, {"HurdleGamma", []float64{0.7, 2, 1}, 0, inf},
		{"HurdleLogNormal", []float64{0.7, 0, 1}, 0, inf},
		{"Geometric", []float64{0.3}, 1, inf}, {"DiscreteUniform", []float64{-2, 4}, -2, 4}, {"DiscreteWeibull", []float64{0.6, 1.4}, 0, inf},
	}
	seen := map[string]bool{}
	for _, c := range cases {
		seen[c.name] = true
		u, _ := LookupUnivariate(c.name)
		if lo, hi := u.Ends(c.p); lo != c.lo || hi != c.hi {
			t.Errorf("%s%v: ends [%g, %g], want [%g, %g]", c.name, c.p, lo, hi, c.lo, c.hi)
		}
		discrete := u.Support.Discrete()
		for _, upper := range []bool{false, true} {
			k, _ := LogCDF(c.name, upper)
			cu := *u
			cu.CDFTail = -1
			if upper {
				cu.CDFTail = 1
			}
			at := func(x float64) (float64, []float64) {
				dp := make([]float64, len(c.p))
				lp, dx := k(x, c.p, dp)
				return lp, append(dp, dx)
			}
			for _, e := range []struct {
				x    float64
				want float64 // NaN: finite (a discrete family's mass at its lower end)
			}{{c.lo, map[bool]float64{false: math.Inf(-1), true: 0}[upper]}, {c.hi, map[bool]float64{false: 0, true: math.Inf(-1)}[upper]}} {
				if (discrete || PointMassAtZero(c.name)) && e.x == c.lo { // a mass at the end
					e.want = math.NaN()
				}
				lp, d := at(e.x)
				switch {
				case math.IsNaN(e.want):
					if math.IsNaN(lp) || math.IsInf(lp, 0) || lp >= 0 {
						t.Errorf("%s%v at its lower end %g, upper %v: %g, want the log of its mass", c.name, c.p, e.x, upper, lp)
					}
					continue
				case lp != e.want:
					t.Errorf("%s%v at the end %g, upper %v: %g, want %g", c.name, c.p, e.x, upper, lp, e.want)
				}
				for i, v := range d {
					if v != 0 {
						t.Errorf("%s%v at the end %g, upper %v: partial %d is %g, want 0", c.name, c.p, e.x, upper, i, v)
					}
				}
				if got := cu.ZeroAtEnd(e.x, c.p, lp); got != math.IsInf(lp, -1) {
					t.Errorf("%s%v at the end %g, upper %v: ZeroAtEnd %v for %g", c.name, c.p, e.x, upper, got, lp)
				}
			}
			// Just outside the lower end, log P(X ≤ x) is −Inf too, but
			// not a value at an end: the value is outside the support.
			if !math.IsInf(c.lo, 0) && !upper {
				x := c.lo - 0.5
				if lp, _ := at(x); !math.IsInf(lp, -1) || cu.ZeroAtEnd(x, c.p, lp) {
					t.Errorf("%s%v below its support at %g: %g, ZeroAtEnd %v", c.name, c.p, x, lp, cu.ZeroAtEnd(x, c.p, lp))
				}
			}
			if u.ZeroAtEnd(c.lo, c.p, math.Inf(-1)) {
				t.Errorf("%s: ZeroAtEnd true for a density's kernel", c.name)
			}
		}
	}
	for _, name := range LogCDFNames() {
		if !seen[name] {
			t.Errorf("%s: log CDF not checked at its support's ends", name)
		}
	}
}
